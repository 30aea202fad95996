package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.FlowLimit;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * {@code cost}: what one task costs the cluster, shape by shape (BENCHMARKS.md "Cost per task"; the same shapes as
 * {@code CostTest}, at scale, on a real broker). For each shape, n tasks (default {@value #DEFAULT_N}) go through their
 * life against the scheduler (a child JVM) with an {@link AxWorker} in this process that reports STARTED then SUCCEEDED;
 * between two cuts of every topic of the scheduler (inputs, outputs, internal topics, changelogs: all topics whose name
 * starts with its application id or topic prefix), taken when nothing is in flight, everything written is read back
 * {@code read_committed} and counted. Per task: records and bytes per topic ({@code rec_<topic>}, {@code bytes_<topic>}), {@code records}, {@code bytes},
 * the stores' RocksDB operations from the scheduler's {@code /metrics} ({@code ax_store_operations_total}:
 * {@code rocksdb_gets ... rocksdb_nexts}), and the scheduler's CPU ({@code cpu_ms}, from {@code /proc}, idle time in the
 * window included: {@code window_s}).
 *
 * <p>Shapes: {@code oneshot} (no owner, default settings, due 3 s after it is sent, the n spread over 2 s);
 * {@code owner_limit} (the same with owner {@code acme} and a limit on its job type, {@code maxInFlight} 10,000 so
 * that the gate grants at once: the gate's cost, not queueing); {@code periodic} (every 10 s; the window runs from every
 * task's first occurrence's success to its second's: one occurrence each, in steady state).
 */
public final class CostScenario implements Scenario {
    static final int DEFAULT_N = 2_000;
    private static final long LEAD_MS = 3_000;
    private static final long SPREAD_MS = 2_000;
    private static final long PERIOD_MS = 10_000;
    private static final String TOKEN = "bench";
    private static final String ONESHOT = "cost-oneshot";
    private static final String LIMITED = "cost-limited";
    private static final String PERIODIC = "cost-periodic";
    private static final Pattern STORE_OPS = Pattern.compile("^ax_store_operations_total\\{([^}]*)} (\\S+)$", Pattern.MULTILINE);
    private static final Pattern OP_LABEL = Pattern.compile("op=\"([a-z]+)\"");
    private static final String[] OPS = {"get", "put", "delete", "seek", "next"};

    private final HttpClient http = HttpClient.newHttpClient();
    private final Map<String, AtomicLong> successes = new ConcurrentHashMap<>();
    private int port;

    @Override
    public String name() {
        return "cost";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        int n = context.options().nOr(DEFAULT_N);
        Clock clock = context.clock();
        AxTopics topics = context.topics("cost");
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        AxWorker worker = AxWorker.builder().connectionProperties(context.kafka()).topics(topics).clock(clock)
                .groupId(context.name("cost") + "-workers").concurrency(8)
                .handler(ONESHOT, job -> Result.success()).handler(LIMITED, job -> Result.success())
                .handler(PERIODIC, job -> Result.success()).build();
        try (ChildScheduler scheduler = context.startScheduler("cost", "a", context.newDir("cost-state"),
                Map.of(AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(port), AxConfig.HTTP_TOKEN_CONFIG, TOKEN), List.of());
             Admin admin = Admin.create(context.kafka());
             AxClient client = context.client(topics);
             SuccessCounter counter = new SuccessCounter(context.kafka(), topics.state(), clock, successes)) {
            counter.start();
            worker.start();
            Set<String> schedulerTopics = TopicCut.topicsStartingWith(admin, context.name("cost"));
            context.note("counting " + schedulerTopics.size() + " topics: " + new java.util.TreeSet<>(schedulerTopics));
            if (context.options().warmupS() > 0) {
                context.note("warm-up: " + n + " one-shot tasks, not measured (--warmup 0 skips it)");
                oneShots(context, client, "warm", n, null);
                awaitSuccesses(context, "warm", n);
            }
            Shape shape = new Shape(context, admin, schedulerTopics, scheduler.pid());
            List<ResultLine> lines = new ArrayList<>();

            shape.begin();
            oneShots(context, client, "a", n, null);
            awaitSuccesses(context, "a", n);
            lines.add(shape.end("oneshot", n));

            client.setLimit("type:" + LIMITED, FlowLimit.none().withMaxInFlight(10_000)).join();
            shape.begin(); // after the limit: it is set once per job type, not per task
            oneShots(context, client, "b", n, "acme");
            awaitSuccesses(context, "b", n);
            lines.add(shape.end("owner_limit", n));

            long firstAtMs = clock.millis() + LEAD_MS;
            for (int i = 0; i < n; i++) {
                client.schedule("c-" + i).jobType(PERIODIC).every(Duration.ofMillis(PERIOD_MS),
                        Instant.ofEpochMilli(firstAtMs + i * SPREAD_MS / n)).payload(Submitter.PAYLOAD).submit();
            }
            client.flush();
            awaitSuccesses(context, "c", n);
            shape.begin(); // steady state: from every task's first occurrence's success to its second's
            awaitSuccesses(context, "c", 2L * n);
            lines.add(shape.end("periodic", n));
            counter.checkHealthy();
            return lines;
        } finally {
            worker.close();
        }
    }

    /** n one-shot tasks {@code <label>-<i>}, due 3 s from now, spread over 2 s. */
    private static void oneShots(BenchContext context, AxClient client, String label, int n, String owner) {
        long firstAtMs = context.clock().millis() + LEAD_MS;
        for (int i = 0; i < n; i++) {
            var schedule = client.schedule(label + "-" + i).jobType(owner == null ? ONESHOT : LIMITED)
                    .at(Instant.ofEpochMilli(firstAtMs + i * SPREAD_MS / n)).payload(Submitter.PAYLOAD);
            if (owner != null) {
                schedule.owner(owner);
            }
            schedule.submit();
        }
        client.flush();
    }

    private void awaitSuccesses(BenchContext context, String label, long target) throws InterruptedException {
        AtomicLong seen = successes.computeIfAbsent(label, l -> new AtomicLong());
        try (Progress progress = context.progress("cost " + label, () -> "succeeded %d/%d".formatted(seen.get(), target))) {
            if (!Await.until(context.clock(), Duration.ofMinutes(5), Duration.ofSeconds(60), seen::get, () -> seen.get() >= target)) {
                throw new IllegalStateException("cost: " + label + " reached " + seen.get() + " successes of " + target);
            }
        }
    }

    /** One measurement window: the cuts of the topics, the store operations and the scheduler's CPU at both ends. */
    private final class Shape {
        private final BenchContext context;
        private final Admin admin;
        private final Set<String> topics;
        private final long pid;
        private TopicCut start;
        private Map<String, Double> opsAtStart;
        private long cpuMsAtStart;
        private long startMs;

        Shape(BenchContext context, Admin admin, Set<String> topics, long pid) {
            this.context = context;
            this.admin = admin;
            this.topics = topics;
            this.pid = pid;
        }

        void begin() throws Exception {
            start = TopicCut.takeQuiet(admin, topics, 300, Duration.ofSeconds(10));
            opsAtStart = storeOps();
            cpuMsAtStart = ProcessCpu.cpuMs(pid);
            startMs = context.clock().millis();
        }

        ResultLine end(String shape, int n) throws Exception {
            TopicCut end = TopicCut.takeQuiet(admin, topics, 300, Duration.ofSeconds(10));
            long cpuMs = ProcessCpu.cpuMs(pid) - cpuMsAtStart;
            long windowMs = context.clock().millis() - startMs;
            Map<String, Double> ops = storeOps();
            Map<String, TopicCut.Written> written = start.writtenUntil(end, context.kafka());
            ResultLine line = ResultLine.of("cost", n).add("shape", shape);
            long records = written.values().stream().mapToLong(TopicCut.Written::records).sum();
            long bytes = written.values().stream().mapToLong(TopicCut.Written::bytes).sum();
            line.add("records", (double) records / n).add("bytes", (double) bytes / n);
            Map<String, Double> perTopic = new TreeMap<>();
            written.forEach((topic, w) -> {
                if (w.records() > 0) {
                    String name = shortName(topic, context.name("cost"));
                    perTopic.put("rec_" + name, (double) w.records() / n);
                    perTopic.put("bytes_" + name, (double) w.bytes() / n);
                }
            });
            perTopic.forEach(line::add);
            for (String op : OPS) {
                line.add("rocksdb_" + op + "s", (ops.getOrDefault(op, 0.0) - opsAtStart.getOrDefault(op, 0.0)) / n);
            }
            line.add("cpu_ms", (double) cpuMs / n).add("window_s", windowMs / 1000.0);
            context.note(shape + ": " + records + " records, " + bytes + " bytes over " + n + " tasks; RocksDB operations "
                    + opsAtStart + " -> " + ops);
            return line;
        }
    }

    /** {@code bench-cost-x.requests} → {@code requests}; {@code bench-cost-x-ax-tasks-changelog} → {@code ax_tasks_changelog}. */
    static String shortName(String topic, String prefix) {
        String rest = topic.startsWith(prefix) ? topic.substring(prefix.length()) : topic;
        return rest.replaceFirst("^[.-]", "").toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_");
    }

    /** op → the sum over stores of {@code ax_store_operations_total}, from the scheduler's {@code /metrics}. */
    private Map<String, Double> storeOps() throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 200) {
            throw new IllegalStateException("cost: GET /metrics answered " + response.statusCode());
        }
        Map<String, Double> ops = new TreeMap<>();
        Matcher line = STORE_OPS.matcher(response.body());
        while (line.find()) {
            Matcher op = OP_LABEL.matcher(line.group(1));
            if (op.find()) {
                ops.merge(op.group(1), Double.parseDouble(line.group(2)), Double::sum);
            }
        }
        return ops;
    }

    /** Counts SUCCESS events on the state topic by task key prefix ({@code a-7} → {@code a}), every occurrence. */
    private static final class SuccessCounter extends TopicTail {
        private static final String SUCCESS = "\"to\":\"SUCCESS\"";
        private final Map<String, AtomicLong> counts;

        SuccessCounter(Map<String, Object> kafka, String stateTopic, Clock clock, Map<String, AtomicLong> counts) {
            super(kafka, stateTopic, clock);
            this.counts = counts;
        }

        @Override
        void onBatch(ConsumerRecords<String, byte[]> records, long seenAtMs) {
            for (ConsumerRecord<String, byte[]> record : records) {
                int dash = record.key() == null ? -1 : record.key().indexOf('-');
                if (dash > 0 && record.value() != null && new String(record.value(), StandardCharsets.UTF_8).contains(SUCCESS)) {
                    counts.computeIfAbsent(record.key().substring(0, dash), l -> new AtomicLong()).incrementAndGet();
                }
            }
        }
    }
}
