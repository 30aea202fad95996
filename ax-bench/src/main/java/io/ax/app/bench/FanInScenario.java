package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.client.AxClient;
import io.ax.client.ScheduleBuilder;
import io.ax.schema.DependencyCondition;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * {@code fanin}: one task after n others (default 10,000), through intermediate tasks since a request names at most 100
 * (topology-docs/WORKFLOWS.md, "Fan-in beyond 100"): n upstream tasks due together, ceil(n / 100) barrier tasks each
 * after 100 of them, and the join after every barrier. A worker in this JVM runs all of them at once (success). From
 * the read_committed views of {@code ax.results} and {@code ax.dispatch}: {@code last_success_to_dispatch_ms}, from the
 * last upstream's SUCCEEDED report becoming visible to the join's dispatch becoming visible (the whole fan-in: two
 * hops of dependencies and the barrier's run), and {@code last_barrier_to_dispatch_ms} (one hop); {@code upstream_s},
 * the time the n upstream tasks took to run.
 */
public final class FanInScenario implements Scenario {
    static final int DEFAULT_N = 10_000;
    private static final int PER_BARRIER = 100;
    private static final String JOIN = "fanin-join";
    private static final String UP = "fanin-up-";
    private static final String BARRIER = "fanin-barrier-";

    @Override
    public String name() {
        return "fanin";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        Clock clock = context.clock();
        int n = context.options().nOr(DEFAULT_N);
        int barriers = (n + PER_BARRIER - 1) / PER_BARRIER;
        Path stateDir = context.newDir("fanin-state");
        AxTopics topics = context.topics("fanin");
        try (ChildScheduler scheduler = context.startScheduler("fanin", stateDir);
             Seen results = new Seen(context, topics.results(), clock, n);
             Seen dispatches = new Seen(context, topics.dispatch(), clock, n);
             AxClient client = context.client(topics);
             AxWorker worker = AxWorker.builder().connectionProperties(context.kafka()).topics(topics).clock(clock)
                     .groupId(context.name("fanin-workers")).handler("fanin", 64, job -> Result.success()).build()) {
            results.start();
            dispatches.start();
            worker.start();
            ScheduleBuilder join = client.schedule(JOIN).jobType("fanin").afterTimeout(Duration.ofHours(1));
            List<CompletableFuture<?>> sent = new ArrayList<>();
            for (int b = 0; b < barriers; b++) {
                join.after(BARRIER + b, DependencyCondition.SUCCESS);
                ScheduleBuilder barrier = client.schedule(BARRIER + b).jobType("fanin").afterTimeout(Duration.ofHours(1));
                for (int i = b * PER_BARRIER; i < Math.min(n, (b + 1) * PER_BARRIER); i++) {
                    barrier.after(UP + i, DependencyCondition.SUCCESS);
                }
                sent.add(barrier.submit());
            }
            sent.add(join.submit());
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get();
            context.note("join and " + barriers + " barriers scheduled; scheduling " + n + " upstream tasks");
            long startMs = clock.millis();
            sent.clear();
            for (int i = 0; i < n; i++) {
                sent.add(client.schedule(UP + i).jobType("fanin").after(Duration.ZERO).submit());
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get();
            long deadlineMs = clock.millis() + Duration.ofMinutes(10).toMillis();
            while (dispatches.joinSeenAtMs() < 0) {
                results.checkHealthy();
                dispatches.checkHealthy();
                if (clock.millis() > deadlineMs) {
                    throw new IllegalStateException("the join was not dispatched within 10 min; upstream successes seen: "
                            + results.upstreamSucceeded() + " of " + n + ", barrier successes: " + results.barriersSucceeded());
                }
                Thread.sleep(20);
            }
            long joinMs = dispatches.joinSeenAtMs();
            return List.of(ResultLine.of("fanin", n).add("barriers", barriers)
                    .add("last_success_to_dispatch_ms", joinMs - results.lastUpstreamSuccessMs())
                    .add("last_barrier_to_dispatch_ms", joinMs - results.lastBarrierSuccessMs())
                    .add("last_success_to_last_barrier_dispatch_ms", dispatches.lastBarrierDispatchMs() - results.lastUpstreamSuccessMs())
                    .add("upstream_s", (results.lastUpstreamSuccessMs() - startMs) / 1000.0)
                    .add("upstream_dispatched_s", (dispatches.lastUpstreamDispatchMs() - startMs) / 1000.0)
                    .add("upstream_succeeded", results.upstreamSucceeded()));
        }
    }

    /** When the records of the fan-in became visible, read_committed. */
    private static final class Seen extends TopicTail {
        private final int n;
        private final boolean[] upstream;
        private volatile int upstreamSucceeded;
        private volatile int barriersSucceeded;
        private volatile long lastUpstreamSuccessMs = -1;
        private volatile long lastBarrierSuccessMs = -1;
        private volatile long joinSeenAtMs = -1;
        private volatile long lastBarrierDispatchMs = -1;
        private volatile long lastUpstreamDispatchMs = -1;

        Seen(BenchContext context, String topic, Clock clock, int n) {
            super(context.kafka(), topic, clock);
            this.n = n;
            this.upstream = new boolean[n];
        }

        @Override
        void onBatch(ConsumerRecords<String, byte[]> records, long seenAtMs) {
            for (ConsumerRecord<String, byte[]> record : records) {
                String key = record.key();
                if (key.startsWith(UP) && record.topic().endsWith("dispatch")) {
                    lastUpstreamDispatchMs = seenAtMs;
                }
                if (key.startsWith(BARRIER) && record.topic().endsWith("dispatch")) {
                    lastBarrierDispatchMs = seenAtMs;
                }
                if (key.equals(JOIN)) {
                    joinSeenAtMs = joinSeenAtMs < 0 ? seenAtMs : joinSeenAtMs;
                } else if (isSuccess(record) && key.startsWith(UP)) {
                    int index = Integer.parseInt(key.substring(UP.length()));
                    if (index < n && !upstream[index]) {
                        upstream[index] = true;
                        upstreamSucceeded++;
                        lastUpstreamSuccessMs = seenAtMs;
                    }
                } else if (isSuccess(record) && key.startsWith(BARRIER)) {
                    barriersSucceeded++;
                    lastBarrierSuccessMs = seenAtMs;
                }
            }
        }

        /** A SUCCEEDED report on ax.results (the worker writes Avro: the status symbol's name is not in the bytes). */
        private static boolean isSuccess(ConsumerRecord<String, byte[]> record) {
            if (!record.topic().endsWith("results")) {
                return false;
            }
            io.ax.schema.ExecutionReport report = io.ax.codec.WireCodec.decodeBinary(record.value(), io.ax.schema.ExecutionReport.class);
            return report.getStatus() == io.ax.schema.ReportStatus.SUCCEEDED;
        }

        long lastUpstreamDispatchMs() {
            return lastUpstreamDispatchMs;
        }

        long lastBarrierDispatchMs() {
            return lastBarrierDispatchMs;
        }

        long joinSeenAtMs() {
            return joinSeenAtMs;
        }

        long lastUpstreamSuccessMs() {
            return lastUpstreamSuccessMs;
        }

        long lastBarrierSuccessMs() {
            return lastBarrierSuccessMs;
        }

        int upstreamSucceeded() {
            return upstreamSucceeded;
        }

        int barriersSucceeded() {
            return barriersSucceeded;
        }
    }
}
