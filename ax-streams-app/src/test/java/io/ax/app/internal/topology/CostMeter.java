package io.ax.app.internal.topology;

import io.ax.AxHeaders;
import io.ax.app.internal.store.StoreOps;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.test.TestRecord;

/**
 * Counts what a {@link SchedulerHarness} writes (every topic, the stores' changelogs included, as the driver captured
 * them), what the test pipes in through the meter (requests, worker reports), and what the stores asked of RocksDB
 * ({@link StoreOps}), from {@link #start()} to {@link #measure()}. For {@code CostTest}: figures per task, counts,
 * not times.
 */
final class CostMeter {
    private final SchedulerHarness ax;
    private final Map<String, Long> records = new TreeMap<>();
    private final Map<String, Long> bytes = new TreeMap<>();
    private final List<TestRecord<byte[], byte[]>> dispatches = new ArrayList<>();
    private final List<String> transitions = new ArrayList<>();
    private Map<String, Long> opsAtStart = Map.of();

    CostMeter(SchedulerHarness ax) {
        this.ax = ax;
    }

    /** Forgets everything written so far (the setup's records) and starts counting. */
    CostMeter start() {
        for (String topic : ax.producedTopicNames()) {
            ax.drainRaw(topic);
        }
        records.clear();
        bytes.clear();
        dispatches.clear();
        transitions.clear();
        opsAtStart = storeOps();
        return this;
    }

    /** Pipes a request and counts it on the requests topic. */
    void request(String taskId, String json) {
        countIn(ax.topics.requests(), taskId, json);
        ax.request(taskId, json);
    }

    /** Pipes a worker report on the dispatch's execution and counts it on the results topic. */
    void report(Run run, String status) {
        String json = "{\"executionId\":\"" + run.executionId() + "\",\"attempt\":" + run.attempt() + ",\"status\":\"" + status + "\"}";
        countIn(ax.topics.results(), run.taskId(), json);
        ax.report(run.taskId(), json);
    }

    private void countIn(String topic, String key, String value) {
        records.merge(topic, 1L, Long::sum);
        bytes.merge(topic, (long) key.getBytes(StandardCharsets.UTF_8).length + value.getBytes(StandardCharsets.UTF_8).length, Long::sum);
    }

    /** The RUN dispatches written since the last call (reading them counts them, as every other record written). */
    List<Run> runs() {
        collect();
        List<Run> runs = new ArrayList<>();
        for (TestRecord<byte[], byte[]> record : dispatches) {
            if ("RUN".equals(header(record, AxHeaders.KIND))) {
                runs.add(new Run(new String(record.key(), StandardCharsets.UTF_8), header(record, AxHeaders.EXECUTION_ID),
                        Integer.parseInt(header(record, AxHeaders.ATTEMPT))));
            }
        }
        dispatches.clear();
        return runs;
    }

    /** What was written and asked since {@link #start()}. */
    Cost measure() {
        collect();
        Map<String, Long> ops = new TreeMap<>();
        storeOps().forEach((key, count) -> {
            long delta = count - opsAtStart.getOrDefault(key, 0L);
            if (delta != 0) {
                ops.put(key, delta);
            }
        });
        return new Cost(new TreeMap<>(records), new TreeMap<>(bytes), ops, List.copyOf(transitions));
    }

    private void collect() {
        for (String topic : ax.producedTopicNames()) {
            for (TestRecord<byte[], byte[]> record : ax.drainRaw(topic)) {
                records.merge(topic, 1L, Long::sum);
                bytes.merge(topic, size(record), Long::sum);
                if (topic.equals(ax.topics.dispatch())) {
                    dispatches.add(record);
                } else if (topic.equals(ax.topics.state())) {
                    transitions.add(transition(new String(record.value(), StandardCharsets.UTF_8)));
                }
            }
        }
    }

    private static final java.util.regex.Pattern FROM = java.util.regex.Pattern.compile("\"from\":\"([A-Z_]+)\"");
    private static final java.util.regex.Pattern TO = java.util.regex.Pattern.compile("\"to\":\"([A-Z_]+)\"");

    /** "PENDING->TRIGGERED" of a state event ("->PENDING" without a from). */
    private static String transition(String json) {
        java.util.regex.Matcher from = FROM.matcher(json);
        java.util.regex.Matcher to = TO.matcher(json);
        return (from.find() ? from.group(1) : "") + "->" + (to.find() ? to.group(1) : "?");
    }

    private static long size(TestRecord<byte[], byte[]> record) {
        long size = (record.key() == null ? 0 : record.key().length) + (record.value() == null ? 0 : record.value().length);
        for (Header header : record.headers()) {
            size += header.key().getBytes(StandardCharsets.UTF_8).length + (header.value() == null ? 0 : header.value().length);
        }
        return size;
    }

    private static String header(TestRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    /** "store/op" → count, summed over the stream tasks. */
    private Map<String, Long> storeOps() {
        Map<String, Long> out = new TreeMap<>();
        ax.kafkaMetrics().forEach((name, metric) -> {
            if (name.group().equals(StoreOps.METRIC_GROUP) && metric.metricValue() instanceof Number value) {
                String op = name.name().substring(0, name.name().length() - "-total".length());
                out.merge(name.tags().get(StoreOps.STORE_TAG) + "/" + op, value.longValue(), Long::sum);
            }
        });
        return out;
    }

    /** One dispatched attempt. */
    record Run(String taskId, String executionId, int attempt) {
    }

    /** Records and bytes per topic, and store operations per "store/op", of one measurement. */
    record Cost(Map<String, Long> records, Map<String, Long> bytes, Map<String, Long> storeOps, List<String> transitions) {
        long totalRecords() {
            return records.values().stream().mapToLong(Long::longValue).sum();
        }

        long records(String topic) {
            return records.getOrDefault(topic, 0L);
        }

        long totalBytes() {
            return bytes.values().stream().mapToLong(Long::longValue).sum();
        }

        long ops(String op) {
            return storeOps.entrySet().stream().filter(e -> e.getKey().endsWith("/" + op)).mapToLong(Map.Entry::getValue).sum();
        }

        /** Gets, puts, deletes and seeks (iterator entries apart). */
        long storeOperations() {
            return ops("get") + ops("put") + ops("delete") + ops("seek");
        }

        /** A table: one row per topic (records, bytes), the total, then the store operations. */
        String table(String shape) {
            StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%n== cost of %s ==%n%-40s %8s %8s%n", shape, "topic",
                    "records", "bytes"));
            records.forEach((topic, n) -> out.append(String.format(Locale.ROOT, "%-40s %8d %8d%n", topic, n, bytes.get(topic))));
            out.append(String.format(Locale.ROOT, "%-40s %8d %8d%n", "TOTAL", totalRecords(), totalBytes()));
            out.append("state events: ").append(transitions).append(System.lineSeparator());
            out.append(String.format(Locale.ROOT, "%-40s %8s%n", "RocksDB operations (store/op)", "count"));
            storeOps.forEach((key, n) -> out.append(String.format(Locale.ROOT, "%-40s %8d%n", key, n)));
            for (StoreOps.Op op : StoreOps.Op.values()) {
                String name = op.name().toLowerCase(Locale.ROOT);
                out.append(String.format(Locale.ROOT, "%-40s %8d%n", "TOTAL " + name, ops(name)));
            }
            out.append(String.format(Locale.ROOT, "%-40s %8d%n", "TOTAL get+put+delete+seek", storeOperations()));
            return out.toString();
        }
    }
}
