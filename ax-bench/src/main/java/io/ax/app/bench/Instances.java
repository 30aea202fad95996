package io.ax.app.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The chaos run's three scheduler instances {@code a b c}: child JVMs of one application, each on its own state dir
 * with its own {@code ax.instance.name} (so its own static group membership). An instance can be killed (kill -9)
 * and restarted on the same state dir from any thread.
 */
final class Instances implements AutoCloseable {
    static final int COUNT = 3;
    private static final List<String> NAMES = List.of("a", "b", "c");
    /**
     * Kafka Streams' INFO lines (rebalances, assignments, restoration) in the instances' logs, which a failed run keeps:
     * what each instance was doing when firing stopped is what explains a failure.
     */
    private static final List<String> STREAMS_INFO_LOGS = List.of("-Dax.log.streams=INFO");

    /** How Kafka Streams logs a change of the client's state: {@code ... stream-client [..] State transition from A to B}. */
    private static final String CLIENT_TRANSITION = "State transition from ";

    private final BenchContext context;
    private final String label;
    private final Map<String, String> settings;
    private final Path[] stateDirs = new Path[COUNT];
    private final AtomicReferenceArray<ChildScheduler> running = new AtomicReferenceArray<>(COUNT);

    private Instances(BenchContext context, String label, Map<String, String> settings) {
        this.context = context;
        this.label = label;
        this.settings = Map.copyOf(settings);
    }

    /** Starts a (which creates the topics), then b and c together; returns once all three run. */
    static Instances start(BenchContext context, String label, Map<String, String> settings) throws Exception {
        Instances instances = new Instances(context, label, settings);
        try {
            for (int i = 0; i < COUNT; i++) {
                instances.stateDirs[i] = context.newDir(label + "-state-" + NAMES.get(i));
            }
            instances.startInstance(0);
            ExecutorService starter = Executors.newFixedThreadPool(COUNT - 1);
            try {
                List<Future<Object>> rest = List.of(starter.submit(() -> instances.startInstance(1)),
                        starter.submit(() -> instances.startInstance(2)));
                for (Future<Object> future : rest) {
                    future.get();
                }
            } finally {
                starter.shutdownNow();
            }
            return instances;
        } catch (Exception e) {
            instances.close();
            throw e;
        }
    }

    private Object startInstance(int index) throws Exception {
        running.set(index, context.startScheduler(label, NAMES.get(index), stateDirs[index], settings,
                STREAMS_INFO_LOGS));
        return null;
    }

    static String name(int index) {
        return NAMES.get(index);
    }

    /** kill -9 of instance {@code index}; returns its pid. */
    long kill(int index) throws InterruptedException {
        ChildScheduler child = running.get(index);
        child.killForcibly();
        return child.pid();
    }

    /** Starts instance {@code index} again on its state dir; returns once it runs. */
    void restart(int index) throws Exception {
        startInstance(index);
    }

    /**
     * How many lines of the instances' logs (every run of each, appended to one file) contain {@code text}; 0 for a
     * log that cannot be read.
     */
    long logLinesContaining(String text) {
        long count = 0;
        for (int i = 0; i < COUNT; i++) {
            count += readLog(i, lines -> lines.filter(line -> line.contains(text)).count(), 0L);
        }
        return count;
    }

    /**
     * What {@code reader} makes of instance {@code index}'s log (every run of it, appended to one file); {@code orElse}
     * when it has none or it cannot be read: the run's checks do not depend on the logs.
     */
    private <T> T readLog(int index, Function<Stream<String>, T> reader, T orElse) {
        ChildScheduler child = running.get(index);
        if (child == null) {
            return orElse;
        }
        try (Stream<String> lines = Files.lines(child.logFile(), StandardCharsets.UTF_8)) {
            return reader.apply(lines);
        } catch (IOException | UncheckedIOException e) {
            return orElse;
        }
    }

    /**
     * Each instance's last Kafka Streams client state in its log, and how many ERROR lines its log holds, as one word for
     * a RESULT line ({@code a:RUNNING:0,b:REBALANCING:3,c:RUNNING:0}; {@code ?} where the log has none or cannot be read).
     */
    String clientStates() {
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < COUNT; i++) {
            word.append(i == 0 ? "" : ",").append(NAMES.get(i)).append(':').append(readLog(i, Instances::clientState, "?:0"));
        }
        return word.toString();
    }

    /** {@code STATE:errors}: the last client state a scheduler's log names ({@code ?} if none) and its ERROR line count. */
    static String clientState(Stream<String> log) {
        String state = "?";
        long errors = 0;
        for (String line : (Iterable<String>) log::iterator) {
            if (line.contains("stream-client [") && line.contains(CLIENT_TRANSITION)) {
                String to = line.substring(line.lastIndexOf(' ') + 1);
                state = to.matches("[A-Z_]+") ? to : "?";
            } else if (line.contains(" ERROR ")) {
                errors++;
            }
        }
        return state + ":" + errors;
    }

    /** Stops every running instance (SIGTERM, then SIGKILL). */
    @Override
    public void close() throws InterruptedException {
        for (int i = 0; i < COUNT; i++) {
            ChildScheduler child = running.get(i);
            if (child != null) {
                child.close();
            }
        }
    }
}
