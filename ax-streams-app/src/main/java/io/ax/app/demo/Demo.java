package io.ax.app.demo;

import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * ax end to end in one process: a real embedded Kafka broker, the scheduler, a worker and a client. It
 * schedules a handful of tasks (one-shot, fixed interval, one that succeeds on its third attempt, one no worker
 * serves so it times out, one whose handler fails for good, one cancelled, a duplicate and a malformed
 * request) and prints every state change from {@code ax.state} as it happens.
 *
 * <p>{@link #run()} is {@code ./ax demo}: {@link #start()} and a script paced for a reader, which cancels the
 * reminder at 4 s (it is due at 6 s), lets the interval task repeat for the demo's length, waits until every
 * one-shot task has ended, then cancels the interval task. A test drives a {@link Session} itself instead.
 */
public final class Demo {
    /** The one-shot tasks the demo schedules; each ends by itself (the reminder with its cancel). */
    static final Set<String> ONE_SHOT_TASKS =
            Set.of("welcome-email", "nightly-report", "charge-card", "legacy-export", "reminder", "typo-task");
    static final String INTERVAL_TASK = "inventory-sync";
    /** The states a one-shot task ends in. */
    private static final Set<String> ONE_SHOT_ENDS = Set.of("SUCCESS", "FAILED", "CANCELLED", "REJECTED");
    private static final Duration OUTCOME_TIMEOUT = Duration.ofSeconds(60);

    private final PrintStream out;
    private final Clock clock;
    private final Duration length;

    public Demo(PrintStream out, Clock clock, Duration length) {
        this.out = out;
        this.clock = clock;
        this.length = length;
    }

    /** Runs the demo; returns each task's latest state as seen on {@code ax.state}. */
    public Map<String, String> run() throws Exception {
        try (Session demo = start()) {
            pauseUntil(demo.startMs() + 4000);
            demo.cancel("reminder", "customer unsubscribed");
            pauseUntil(demo.startMs() + length.toMillis());
            demo.awaitLatest(ONE_SHOT_TASKS, ONE_SHOT_ENDS, OUTCOME_TIMEOUT);
            demo.cancel(INTERVAL_TASK, "demo over");
            // Not any final state: after each occurrence the interval task's latest event is that occurrence's SUCCESS.
            demo.awaitLatest(Set.of(INTERVAL_TASK), Set.of("CANCELLED"), OUTCOME_TIMEOUT);
            Map<String, String> latest = new TreeMap<>(demo.latestStates());
            out.println();
            out.println("Final states: " + latest);
            return latest;
        }
    }

    /**
     * Starts the broker, the scheduler, a worker, a client and the {@code ax.state} watcher, and schedules the demo's
     * tasks; returns once Kafka acknowledged every request. The caller cancels the reminder and the interval task.
     */
    public Session start() throws Exception {
        out.println("ax demo: starting a real Kafka broker (KRaft, in this process)...");
        Deque<AutoCloseable> opened = new ArrayDeque<>();
        try {
            Path stateDir = Files.createTempDirectory("ax-demo-state");
            opened.push(() -> deleteQuietly(stateDir));
            EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
            opened.push(broker);
            String bootstrap = broker.bootstrapServers();
            AxTopics topics = AxTopics.defaults();
            out.println("  broker ready at " + bootstrap);
            AxScheduler scheduler = AxScheduler.start(new AxConfig(Map.of(
                    AxConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    AxConfig.APPLICATION_ID_CONFIG, "ax-demo",
                    AxConfig.TOPIC_PARTITIONS_CONFIG, 3,
                    AxConfig.STATE_DIR_CONFIG, stateDir.toString())));
            opened.push(scheduler);
            scheduler.awaitRunning(Duration.ofMinutes(2));
            AxWorker worker = demoWorker(bootstrap);
            opened.push(worker);
            AxClient client = AxClient.builder().bootstrapServers(bootstrap).clock(clock).build();
            opened.push(client);
            worker.start();
            out.println("  scheduler running (exactly-once, topics " + String.join(", ", topics.all()) + ")");
            out.println("  worker '" + worker.workerId() + "' handles job types: email, sync, payment, report");
            long startMs = clock.millis();
            StateWatcher watcher = new StateWatcher(bootstrap, topics.state(), out, startMs);
            opened.push(watcher);
            watcher.start();
            out.println();
            out.println("Scheduling: welcome-email in 2s; inventory-sync every 1.5s; charge-card in 1s (fails twice,"
                    + " then succeeds on retry); legacy-export in 2s (no worker serves it: it times out after 1.5s,"
                    + " retries once, then fails); nightly-report in 3s (its handler fails for good); reminder in 6s"
                    + " (cancelled at 4s); a duplicate and a malformed request.");
            out.println("State changes on " + topics.state() + " (what `kcat -C -t " + topics.state() + "` shows), seconds"
                    + " from now:");
            scheduleDemoTasks(client, bootstrap, topics);
            return new Session(opened, client, watcher, startMs);
        } catch (Exception | Error e) {
            closeAll(opened, e);
            throw e;
        }
    }

    /** A started demo: everything runs until {@link #close()}. */
    public final class Session implements AutoCloseable {
        private final Deque<AutoCloseable> opened;
        private final AxClient client;
        private final StateWatcher watcher;
        private final long startMs;

        private Session(Deque<AutoCloseable> opened, AxClient client, StateWatcher watcher, long startMs) {
            this.opened = opened;
            this.client = client;
            this.watcher = watcher;
            this.startMs = startMs;
        }

        /** When the demo's clock started, just before the tasks were scheduled. */
        public long startMs() {
            return startMs;
        }

        /** taskId → the latest state seen on {@code ax.state} ("to" of its last event). */
        public Map<String, String> latestStates() {
            return watcher.latestStates();
        }

        /** Every "to" seen on {@code ax.state} for {@code taskId}, in order. */
        public List<String> transitions(String taskId) {
            return watcher.transitions(taskId);
        }

        /** Cancels {@code taskId}; returns once Kafka acknowledged the request. */
        public void cancel(String taskId, String reason) throws Exception {
            client.cancel(taskId, reason).get();
        }

        /**
         * Waits until the latest state of each of {@code taskIds} is one of {@code states}, or says which tasks are not
         * there after {@code timeout} (the demo is for a reader: it goes on and shows what it saw).
         */
        void awaitLatest(Set<String> taskIds, Set<String> states, Duration timeout) throws InterruptedException {
            long deadlineMs = clock.millis() + timeout.toMillis();
            while (!notYet(taskIds, states).isEmpty()) {
                if (clock.millis() >= deadlineMs) {
                    out.println("  (not " + states + " after " + timeout.toSeconds() + " s: " + notYet(taskIds, states) + ")");
                    return;
                }
                Thread.sleep(50);
            }
        }

        private Set<String> notYet(Set<String> taskIds, Set<String> states) {
            Map<String, String> latest = latestStates();
            return new TreeSet<>(taskIds.stream().filter(id -> !states.contains(latest.get(id))).toList());
        }

        /** Stops the watcher, the client, the worker, the scheduler and the broker, in that order. */
        @Override
        public void close() throws Exception {
            closeAll(opened, null);
        }
    }

    /** Closes what was opened, newest first; with {@code failure}, what fails to close is added to it. */
    private static void closeAll(Deque<AutoCloseable> opened, Throwable failure) throws Exception {
        Exception first = null;
        while (!opened.isEmpty()) {
            try {
                opened.pop().close();
            } catch (Exception e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static AxWorker demoWorker(String bootstrap) {
        return DemoHandlers.register(AxWorker.builder().bootstrapServers(bootstrap).groupId("ax-demo-workers")
                .workerId("demo-worker"), DemoHandlers.defaults()).build();
    }

    private void scheduleDemoTasks(AxClient client, String bootstrap, AxTopics topics) throws Exception {
        client.schedule("welcome-email").jobType("email").after(Duration.ofSeconds(2))
                .payload("{\"to\":\"ada@example.com\"}").submit().get();
        client.schedule("welcome-email").jobType("email").after(Duration.ofSeconds(2)).submit().get();
        client.schedule(INTERVAL_TASK).jobType("sync").every(Duration.ofMillis(1500)).priority(7).submit().get();
        client.schedule("nightly-report").jobType("report").after(Duration.ofSeconds(3)).submit().get();
        client.schedule("charge-card").jobType("payment").after(Duration.ofSeconds(1)).maxRetries(3)
                .backoff(Duration.ofMillis(500)).submit().get();
        client.schedule("legacy-export").jobType("export").after(Duration.ofSeconds(2)).timeout(Duration.ofMillis(1500))
                .maxRetries(1).backoff(Duration.ofMillis(500)).submit().get();
        client.schedule("reminder").jobType("email").after(Duration.ofSeconds(6)).submit().get();
        // What a typo from a shell looks like: rejected on ax.state, nothing else disturbed.
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(topics.requests(), "typo-task",
                    "{\"jobType\":\"email\",\"delayMS\":1000}".getBytes(StandardCharsets.UTF_8))).get();
        }
    }

    /** Paces the script for a reader (not a wait for an outcome: those are {@link Session#awaitLatest}). */
    private void pauseUntil(long atMs) throws InterruptedException {
        long ms = atMs - clock.millis();
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            // a temp dir; the OS cleans it eventually
        }
    }
}
