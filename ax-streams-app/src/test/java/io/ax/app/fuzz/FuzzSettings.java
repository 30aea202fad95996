package io.ax.app.fuzz;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;

/**
 * The size and seed of a fuzz run, from system properties (Maven passes {@code -D} on its command line to the tests):
 * <ul>
 *   <li>{@code ax.fuzz.count}: how many generated inputs (each level has its own default, sized for CI);</li>
 *   <li>{@code ax.fuzz.seed}: a number, or {@code random}; the default is fixed so CI runs are repeatable;</li>
 *   <li>{@code ax.fuzz.only}: comma-separated indexes to run alone, to reproduce a reported failure;</li>
 *   <li>{@code ax.fuzz.stopAfterFailures}: stop after this many broken inputs (default
 *       {@value #DEFAULT_STOP_AFTER_FAILURES}; raise it to survey everything that breaks).</li>
 * </ul>
 */
public record FuzzSettings(long seed, int count, List<Integer> only, int stopAfterFailures) {
    public static final long DEFAULT_SEED = 20261201L;
    /** A run stops after this many broken inputs by default: each costs a fresh scheduler, and the first ones tell the story. */
    public static final int DEFAULT_STOP_AFTER_FAILURES = 30;

    public static FuzzSettings fromSystemProperties(int defaultCount) {
        String seedText = System.getProperty("ax.fuzz.seed", Long.toString(DEFAULT_SEED)).strip();
        long seed = seedText.equalsIgnoreCase("random") ? ThreadLocalRandom.current().nextLong() : Long.parseLong(seedText);
        int count = Integer.parseInt(System.getProperty("ax.fuzz.count", Integer.toString(defaultCount)).strip());
        String onlyText = System.getProperty("ax.fuzz.only", "").strip();
        List<Integer> only = onlyText.isEmpty() ? List.of()
                : Arrays.stream(onlyText.split(",")).map(String::strip).map(Integer::valueOf).toList();
        int stopAfter = Integer.parseInt(System.getProperty("ax.fuzz.stopAfterFailures",
                Integer.toString(DEFAULT_STOP_AFTER_FAILURES)).strip());
        return new FuzzSettings(seed, count, only, stopAfter);
    }

    /** The indexes of the generated inputs to run. */
    public List<Integer> indexes() {
        return only.isEmpty() ? IntStream.range(0, count).boxed().toList() : only;
    }

    /** The command that runs {@code testClass} on just these inputs again. */
    public String reproduce(String testClass, List<Integer> indexes) {
        String list = indexes.stream().limit(50).map(String::valueOf).reduce((a, b) -> a + "," + b).orElse("");
        return "mvn -B -ntp -pl ax-streams-app -am test -Dtest=" + testClass + " -Dsurefire.failIfNoSpecifiedTests=false"
                + " -Dax.fuzz.seed=" + seed + " -Dax.fuzz.only=" + list;
    }

    @Override
    public String toString() {
        return "seed " + seed + ", " + (only.isEmpty() ? count + " inputs" : "inputs " + only);
    }
}
