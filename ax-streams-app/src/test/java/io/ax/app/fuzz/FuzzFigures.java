package io.ax.app.fuzz;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The figures a fuzz run prints at its end: inputs tried per topic/encoding/family, how each was answered,
 * canaries fired, partitions stalled, the largest output record.
 */
public final class FuzzFigures {
    private static final List<String> COLUMNS = List.of("REJECTED", "IGNORED", "PENDING", "WAITING", AnswerLedger.QUARANTINED, "live", "none", "broken");

    private final String title;
    private final Map<String, long[]> rows = new TreeMap<>();
    private final long startedNanos = System.nanoTime();
    private long canariesSent;
    private long canariesFired;
    private int partitions;
    private int stalledPartitions;
    private long largestAllocationBytes;
    private long largestOutputBytes;
    private String largestOutputTopic = "none";
    private long oversizedOutputs;
    private long outputs;

    public FuzzFigures(String title) {
        this.title = title;
    }

    /** One input: its answers (ax.state {@code to} values, QUARANTINED), whether it broke anything, how long it took. */
    public synchronized void tried(HostileInput input, List<String> answers, boolean broken, long elapsedNanos) {
        long[] row = rows.computeIfAbsent(family(input.kind()), k -> new long[COLUMNS.size() + 2]);
        row[0]++;
        row[COLUMNS.size() + 1] += elapsedNanos / 1_000_000;
        if (input.live() != null && !answers.isEmpty()) {
            row[1 + COLUMNS.indexOf("live")]++;
        } else if (answers.isEmpty()) {
            row[1 + COLUMNS.indexOf("none")]++;
        }
        for (String answer : answers) {
            int column = COLUMNS.indexOf(answer);
            if (column >= 0 && input.live() == null) {
                row[1 + column]++;
            }
        }
        if (broken) {
            row[1 + COLUMNS.indexOf("broken")]++;
        }
    }

    /** topic/encoding/family of a kind such as requests/avro/huge-length/jobType. */
    static String family(String kind) {
        String[] parts = kind.split("/");
        return parts.length <= 3 ? kind : parts[0] + "/" + parts[1] + "/" + parts[2];
    }

    public synchronized void canaries(long sent, long fired) {
        canariesSent += sent;
        canariesFired += fired;
    }

    public synchronized void partitions(int partitions, int stalled) {
        this.partitions = partitions;
        this.stalledPartitions = stalled;
    }

    public synchronized void allocation(long bytes) {
        largestAllocationBytes = Math.max(largestAllocationBytes, bytes);
    }

    /** Adds a ledger's output figures (a level may use several ledgers, one per scheduler it started). */
    public synchronized void absorb(AnswerLedger ledger) {
        if (ledger.largestOutputBytes() > largestOutputBytes) {
            largestOutputBytes = ledger.largestOutputBytes();
            largestOutputTopic = ledger.largestOutputTopic();
        }
        oversizedOutputs += ledger.oversized().size();
        outputs += ledger.outputs();
    }

    /** The table (the ms column only when the level timed its inputs) and the run's totals. */
    public synchronized String report() {
        long[] total = new long[COLUMNS.size() + 2];
        rows.values().forEach(row -> {
            for (int i = 0; i < row.length; i++) {
                total[i] += row[i];
            }
        });
        boolean timed = total[total.length - 1] > 0;
        StringBuilder text = new StringBuilder("\n=== fuzz figures: ").append(title).append(" ===\n");
        text.append(String.format("%-44s %6s", "topic/encoding/family", "tried"));
        COLUMNS.forEach(c -> text.append(String.format(" %11s", c)));
        text.append(timed ? String.format(" %8s%n", "ms") : "\n");
        rows.forEach((family, row) -> appendRow(text, family, row, timed));
        appendRow(text, "total", total, timed);
        text.append(String.format("canaries fired: %d of %d; partitions stalled: %d of %d%n", canariesFired, canariesSent,
                stalledPartitions, partitions));
        text.append(String.format("largest output record: %d bytes (%s), bound %d; oversized outputs: %d; outputs read: %d%n",
                largestOutputBytes, largestOutputTopic, AnswerLedger.MAX_OUTPUT_BYTES, oversizedOutputs, outputs));
        if (largestAllocationBytes > 0) {
            text.append(String.format("largest allocation while processing one input: %.1f MB%n", largestAllocationBytes / 1e6));
        }
        return text.append(String.format("elapsed: %.1f s%n", (System.nanoTime() - startedNanos) / 1e9)).toString();
    }

    private static void appendRow(StringBuilder text, String label, long[] row, boolean timed) {
        text.append(String.format("%-44s %6d", label, row[0]));
        for (int i = 1; i <= COLUMNS.size(); i++) {
            text.append(String.format(" %11d", row[i]));
        }
        text.append(timed ? String.format(" %8d%n", row[COLUMNS.size() + 1]) : "\n");
    }
}
