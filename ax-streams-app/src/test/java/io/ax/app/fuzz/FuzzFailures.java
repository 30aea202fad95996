package io.ax.app.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The inputs that broke something in one run, with what each broke. On {@link #report} it writes each of them as
 * a corpus entry under {@code target/fuzz-failures/<level>/}, ready to be copied into
 * {@code src/test/resources/fuzz-corpus/} so every later run replays them first.
 */
public final class FuzzFailures {
    private static final int DETAILED = 40;

    /** One broken input. */
    public record Failure(HostileInput input, int index, List<String> problems) {
    }

    private final String level;
    private final List<Failure> failures = new ArrayList<>();

    public FuzzFailures(String level) {
        this.level = level;
    }

    public synchronized void add(HostileInput input, int index, List<String> problems) {
        failures.add(new Failure(input, index, List.copyOf(problems)));
    }

    public synchronized int size() {
        return failures.size();
    }

    public synchronized boolean isEmpty() {
        return failures.isEmpty();
    }

    /**
     * What broke, input by input, and how to run them again.
     *
     * @param of        how many inputs ran
     * @param reproduce the command line that runs the generated ones among them again (null for corpus runs)
     */
    public synchronized String report(int of, String reproduce) {
        Path saved = Path.of("target", "fuzz-failures", level);
        deleteRecursively(saved); // only this run's failures
        StringBuilder text = new StringBuilder().append(failures.size()).append(" of ").append(of)
                .append(" inputs broke the scheduler (").append(level).append(").\nExpected for each input: an answer on ax.state")
                .append(" whose source is its topic/partition/offset (REJECTED, IGNORED, or PENDING if valid) or a record on ")
                .append("ax.").append(Quarantine.TOPIC_SUFFIX).append(" with its coordinates in headers; no exception out of")
                .append(" the topology; every output record under ").append(AnswerLedger.MAX_OUTPUT_BYTES)
                .append(" bytes; and the canary sent after it on its partition PENDING then dispatched.\n");
        Map<String, Integer> byFamily = new TreeMap<>();
        for (int i = 0; i < failures.size(); i++) {
            Failure failure = failures.get(i);
            byFamily.merge(FuzzFigures.family(failure.input().kind()), 1, Integer::sum);
            String name = corpusName(failure);
            FuzzCorpus.write(saved, failure.input(), name, failure.input().origin() + ": " + String.join("; ", failure.problems()));
            if (i < DETAILED) {
                text.append("\n- ").append(failure.input().describe());
                failure.problems().forEach(problem -> text.append("\n    ").append(problem));
            }
        }
        if (failures.size() > DETAILED) {
            text.append("\n... and ").append(failures.size() - DETAILED).append(" more");
        }
        text.append("\n\nbroken inputs per family: ").append(byFamily);
        text.append("\nsaved as corpus entries under ").append(saved.toAbsolutePath())
                .append(" (copy them into src/test/resources/fuzz-corpus/ to keep them)");
        if (reproduce != null) {
            text.append("\nrun them again: ").append(reproduce);
        }
        return text.toString();
    }

    /** The indexes of the broken generated inputs. */
    public synchronized List<Integer> indexes() {
        return failures.stream().map(Failure::index).filter(i -> i >= 0).toList();
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A corpus entry keeps its name; a generated input is named for its kind and index. */
    private static String corpusName(Failure failure) {
        String origin = failure.input().origin();
        if (origin.startsWith(FuzzCorpus.ORIGIN)) {
            String file = origin.substring(origin.lastIndexOf('/') + 1);
            return file.substring(0, file.indexOf('.'));
        }
        String kind = failure.input().kind().replaceAll("[^A-Za-z0-9.-]+", "-");
        return failure.index() >= 0 ? kind + "-i" + failure.index() : kind + "-c" + Math.abs(failure.input().origin().hashCode() % 10_000);
    }
}
