package io.ax.app.internal.metrics;

import io.ax.app.internal.store.IndexCounts;
import io.ax.app.internal.timer.ClockSteps;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * The scheduler instance's metrics in Micrometer, served in Prometheus' text format ({@link #scrape}); names, labels
 * and meanings are listed in {@code topology-docs/METRICS.md}. Counters are recorded by every stream task as it
 * applies decisions ({@link PartitionMetrics}); gauges of the partitions are computed by their stream threads and
 * published here as {@link PartitionSnapshot}s, so a scrape never reads a state store. Thread-safe.
 */
public final class SchedulerMetrics {
    /** Buckets of {@code ax_fire_lateness_seconds}: around the 2 s alert threshold, up to a minute. */
    private static final Duration[] LATENESS_BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
            Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60)};
    /** Buckets of {@code ax_dispatch_wait_seconds}: around the 1 s scale-out threshold, up to 5 minutes. */
    private static final Duration[] WAIT_BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
            Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofMinutes(5)};

    static final String DEAD_LETTERS = "ax.dead.letters";
    static final String DEAD_LETTERS_DESCRIPTION = "Executions dead-lettered (retries exhausted)";

    private final PrometheusMeterRegistry registry;
    private final MetricsSettings settings;
    private final BoundedLabels jobTypes;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    /** The counters of one tag by name, then tag value: the same Counter objects as {@link #counters}'. */
    private final Map<String, Map<String, Counter>> countersByValue = new ConcurrentHashMap<>();
    private final Map<String, Timer> lateness = new ConcurrentHashMap<>();
    private final Map<String, Timer> dispatchWaits = new ConcurrentHashMap<>();
    private final Map<Integer, PartitionSnapshot> partitions = new ConcurrentHashMap<>();
    private final Map<Integer, IndexCounts> indexCounts = new ConcurrentHashMap<>();
    private final Map<String, PartitionSnapshot.Named> lastFailures = new ConcurrentHashMap<>();
    private final Map<String, PartitionSnapshot.Named> lastLateFires = new ConcurrentHashMap<>();
    private final Map<String, PartitionSnapshot.Named> lastDeadLetters = new ConcurrentHashMap<>();
    private final MultiGauge timersPending;
    private final MultiGauge tasksOverdue;
    private final MultiGauge oldestOverdue;
    private final MultiGauge inFlight;
    private final MultiGauge runningLong;
    private final MultiGauge longRunning;
    private final MultiGauge lastFailure;
    private final MultiGauge lastLateFire;
    private final MultiGauge lastDeadLetter;
    private final AtomicReference<KafkaStreams.State> streamsState = new AtomicReference<>(KafkaStreams.State.CREATED);
    private final Map<String, Long> restoreRemaining = new ConcurrentHashMap<>();
    private final RefusedRecords limitErrors = new RefusedRecords();
    private final RefusedRecords calendarErrors = new RefusedRecords();
    private final RefusedRecords workerErrors = new RefusedRecords();
    /** Partition of the workers topic → {alive, dead} workers its registry holds. */
    private final Map<Integer, long[]> workerCounts = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong workersDeclaredDead = new java.util.concurrent.atomic.AtomicLong();
    /**
     * Held here, though no metric, because the stream threads (which feed it) and the HTTP API (which lists it) both reach
     * the instance's metrics. Workers are forgotten an hour after their last report.
     */
    private final ReportedWorkers reportedWorkers = new ReportedWorkers(3_600_000);
    private final AtomicReference<java.util.function.LongSupplier> httpAbandoned = new AtomicReference<>(() -> 0);
    private final AtomicReference<java.util.function.LongSupplier> httpBusy = new AtomicReference<>(() -> 0);
    private final java.util.concurrent.atomic.AtomicLong flowRecordsSkipped = new java.util.concurrent.atomic.AtomicLong();
    /** Flow-control gate label values, bounded like job types (ax.metrics.max.job.types). */
    private final BoundedLabels gates;
    /** gate → {in flight, waiting} of the gates this instance holds, as their stream tasks last published them. */
    private final Map<String, long[]> gateCounts = new ConcurrentHashMap<>();
    private final Set<String> gateGauges = ConcurrentHashMap.newKeySet();
    /** Held here because Micrometer holds a function counter's object weakly. */
    private volatile StoreOperations storeOperations;
    /** Held here for the same reason. */
    private volatile ClockSteps clockSteps;

    public SchedulerMetrics(MetricsSettings settings) {
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.settings = settings;
        this.jobTypes = new BoundedLabels(settings.maxJobTypes());
        this.gates = new BoundedLabels(settings.maxJobTypes());
        timersPending = MultiGauge.builder("ax.timers.pending")
                .description("Tasks waiting for their due time (PENDING, RETRY_WAITING), by partition").register(registry);
        tasksOverdue = MultiGauge.builder("ax.tasks.overdue")
                .description("Tasks whose due time has passed and that have not fired yet, by partition").register(registry);
        oldestOverdue = MultiGauge.builder("ax.oldest.overdue").baseUnit("seconds")
                .description("How long the most overdue task of each partition has waited past its due time").register(registry);
        inFlight = MultiGauge.builder("ax.executions.in.flight")
                .description("Executions dispatched and not finished (TRIGGERED, RUNNING), by job type").register(registry);
        runningLong = MultiGauge.builder("ax.executions.running.long")
                .description("Executions in flight longer than ax.metrics.long.running.ms, by job type").register(registry);
        longRunning = MultiGauge.builder("ax.long.running.execution").baseUnit("seconds")
                .description("How long each of the longest-running executions past ax.metrics.long.running.ms has run")
                .register(registry);
        lastFailure = MultiGauge.builder("ax.last.failure.timestamp").baseUnit("seconds")
                .description("When the latest failed attempt of each job type failed (Unix time)").register(registry);
        lastLateFire = MultiGauge.builder("ax.last.late.fire").baseUnit("seconds")
                .description("How late the latest attempt of each job type fired later than ax.metrics.late.fire.ms was")
                .register(registry);
        lastDeadLetter = MultiGauge.builder("ax.last.dead.letter.timestamp").baseUnit("seconds")
                .description("When the latest dead-lettered execution of each job type failed for good (Unix time)")
                .register(registry);
        for (KafkaStreams.State state : KafkaStreams.State.values()) {
            Gauge.builder("ax.streams.state", streamsState, current -> current.get() == state ? 1 : 0)
                    .description("1 for the Kafka Streams client's current state, 0 for the others")
                    .tag("state", state.name()).register(registry);
        }
        Gauge.builder("ax.restore.remaining.records", restoreRemaining,
                        remaining -> remaining.values().stream().mapToLong(Long::longValue).sum())
                .description("Changelog records still to restore before this instance's tasks run").register(registry);
        Gauge.builder("ax.flow.limit.records.refused", limitErrors, RefusedRecords::count)
                .description("Records of the limits topic refused (bad key, JSON or field; the previous limits stay) since start")
                .register(registry);
        Gauge.builder("ax.calendar.records.refused", calendarErrors, RefusedRecords::count)
                .description("Records of the calendars topic refused and not stored (bad name, not a calendar, out of bounds; "
                        + "the previous calendar of the name stays) since start").register(registry);
        Gauge.builder("ax.worker.records.refused", workerErrors, RefusedRecords::count)
                .description("Records of the workers topic refused and not stored (bad key, JSON or field, registry full; "
                        + "the worker's previous announcement stays) since start").register(registry);
        for (String state : List.of("alive", "dead")) {
            int index = state.equals("alive") ? 0 : 1;
            Gauge.builder("ax.workers", workerCounts, counts -> counts.values().stream().mapToLong(c -> c[index]).sum())
                    .description("Workers in the registry this instance holds, by state (dead ones stay listed for "
                            + "ax.workers.dead.retention.ms)").tag("state", state).register(registry);
        }
        FunctionCounter.builder("ax.workers.dead", workersDeclaredDead, java.util.concurrent.atomic.AtomicLong::get)
                .description("Workers declared dead (silent for ax.workers.missed.heartbeats of their heartbeats) since start")
                .register(registry);
        Gauge.builder("ax.http.requests.abandoned", httpAbandoned, supplier -> supplier.get().getAsLong())
                .description("HTTP requests whose body did not come within ax.http.idle.timeout.ms (answered 408), since start")
                .register(registry);
        Gauge.builder("ax.http.requests.busy", httpBusy, supplier -> supplier.get().getAsLong())
                .description("HTTP data requests answered 503 because ax.http.max.data.requests were being handled, since start")
                .register(registry);
        Gauge.builder("ax.flow.records.skipped", flowRecordsSkipped, java.util.concurrent.atomic.AtomicLong::get)
                .description("Records of the internal flow topic that were not well-formed flow messages, skipped, since start")
                .register(registry);
    }

    /**
     * The HTTP API's counts (registered when it starts): requests abandoned (their body did not come within the idle
     * timeout) and data requests answered 503 because the data endpoints were saturated.
     */
    public void httpGuard(java.util.function.LongSupplier abandoned, java.util.function.LongSupplier busy) {
        httpAbandoned.set(abandoned);
        httpBusy.set(busy);
    }

    /** A record of the flow topic was skipped: not a well-formed flow message (logged with its offset by the gate). */
    public void flowRecordSkipped() {
        flowRecordsSkipped.incrementAndGet();
    }

    /** Records of the flow topic skipped since start. */
    public long flowRecordsSkipped() {
        return flowRecordsSkipped.get();
    }

    /** An execution had to wait at {@code gate} (topology-docs/FLOW-CONTROL.md). */
    public void flowHeld(String gate) {
        count("ax.flow.held", "Executions that had to wait at a flow-control gate", Tags.of("gate", gates.of(gate)));
    }

    /** The counts of {@code gate}, held by this instance; {@code inFlight < 0}: the gate left this instance. */
    public void flowGate(String gate, long inFlight, long waiting) {
        if (inFlight < 0) {
            gateCounts.remove(gate);
            return;
        }
        gateCounts.put(gate, new long[] {inFlight, waiting});
        String label = gates.of(gate);
        if (gateGauges.add(label)) {
            Gauge.builder("ax.flow.in.flight", gateCounts, counts -> sum(counts, label, 0))
                    .description("Executions holding a slot at a flow-control gate (granted, not yet released)")
                    .tag("gate", label).register(registry);
            Gauge.builder("ax.flow.waiting", gateCounts, counts -> sum(counts, label, 1))
                    .description("Executions waiting at a flow-control gate").tag("gate", label).register(registry);
        }
    }

    private double sum(Map<String, long[]> counts, String label, int index) {
        double total = 0;
        for (Map.Entry<String, long[]> gate : counts.entrySet()) {
            if (gates.of(gate.getKey()).equals(label)) {
                total += gate.getValue()[index];
            }
        }
        return total;
    }

    /** The limits records this instance refused (topology-docs/FLOW-CONTROL.md). */
    public RefusedRecords limitErrors() {
        return limitErrors;
    }

    /** The calendars records this instance refused (topology-docs/PERIODIC.md, Calendars). */
    public RefusedRecords calendarErrors() {
        return calendarErrors;
    }

    /** Refused records of the workers topic (for {@code GET /workers}). */
    public RefusedRecords workerErrors() {
        return workerErrors;
    }

    /** The workers the registry of one workers-topic partition holds now. */
    public void workers(int partition, long alive, long dead) {
        workerCounts.put(partition, new long[] {alive, dead});
    }

    /** The workers this instance heard from through their reports (for {@code GET /workers}). */
    public ReportedWorkers reportedWorkers() {
        return reportedWorkers;
    }

    /** One more worker declared dead ({@code ax_workers_dead_total}). */
    public void workerDeclaredDead() {
        workersDeclaredDead.incrementAndGet();
    }

    public MetricsSettings settings() {
        return settings;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Everything, in Prometheus' text exposition format. Holds off the re-registration of the series that name
     * executions ({@link #republish}, at each partition's refresh, never per event) while it reads, which would otherwise
     * show a series twice mid-swap.
     */
    public synchronized String scrape() {
        return registry.scrape();
    }

    /** The content type of {@link #scrape}. */
    public static String contentType() {
        return "text/plain; version=0.0.4; charset=utf-8";
    }

    // ---- the Kafka Streams client ----

    public void streamsState(KafkaStreams.State state) {
        streamsState.set(state);
    }

    /** {@code ax_stream_threads_alive}: read from {@code threads} at each scrape. */
    public void streamThreads(IntSupplier threads) {
        Gauge.builder("ax.stream.threads.alive", threads, supplier -> {
            try {
                return supplier.getAsInt();
            } catch (RuntimeException e) {
                return 0; // the client is closing
            }
        }).description("Stream threads alive").strongReference(true).register(registry);
    }

    /**
     * {@code ax_store_operations_total{store, op}}: the RocksDB operations of the stores, read at each scrape from
     * {@code kafkaMetrics} (the Kafka Streams client's {@code metrics()}), where each store publishes its counts.
     */
    public void storeOperations(java.util.function.Supplier<? extends Map<org.apache.kafka.common.MetricName,
            ? extends org.apache.kafka.common.Metric>> kafkaMetrics) {
        storeOperations = StoreOperations.register(registry, kafkaMetrics);
    }

    /**
     * {@code ax_clock_steps_total{direction}}: the wall-clock steps {@code steps} noticed, read at each scrape. Both
     * series exist from the start at 0, so the first step is an increase an alert sees. The first detector registered is
     * the one served.
     */
    public void clockSteps(ClockSteps steps) {
        if (clockSteps != null) {
            return;
        }
        clockSteps = steps;
        for (ClockSteps.Direction direction : ClockSteps.Direction.values()) {
            FunctionCounter.builder("ax.clock.steps", steps, s -> s.count(direction))
                    .description("Wall-clock steps noticed: the wall clock moved more than ax.clock.step.threshold.ms more "
                            + "(forward) or less (backward) than the monotonic clock between two checks")
                    .tag("direction", direction.label()).register(registry);
        }
    }

    /** Counts down {@code ax_restore_remaining_records} as changelogs are restored. */
    public StateRestoreListener restoreListener() {
        return new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
                restoreRemaining.put(key(partition, store), Math.max(0, endingOffset - startingOffset));
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {
                restoreRemaining.computeIfPresent(key(partition, store), (k, left) -> Math.max(0, left - numRestored));
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
                restoreRemaining.remove(key(partition, store));
            }

            @Override
            public void onRestoreSuspended(TopicPartition partition, String store, long totalRestored) {
                restoreRemaining.remove(key(partition, store));
            }

            private String key(TopicPartition partition, String store) {
                return store + "/" + partition;
            }
        };
    }

    /**
     * Registers a fire's lateness histogram and records into it in a registry of its own, thrown away after: the first
     * histogram a JVM registers loads and links Micrometer's and Prometheus' histogram code, 17-29 ms that a start-up's
     * first fire paid on its stream thread, its transaction open (traced; its counters are warm by then, accepts count
     * too). Shows on no scheduler's metrics. Returns the observations the throwaway histogram counted (1).
     */
    public static long warmUp() {
        PrometheusMeterRegistry throwaway = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try {
            Timer lateness = latenessHistogram("warm-up", throwaway);
            lateness.record(1, TimeUnit.MILLISECONDS);
            return lateness.count();
        } finally {
            throwaway.close();
        }
    }

    // ---- what stream tasks record ----

    /** The bounded {@code job_type} label of {@code jobType}. */
    String jobType(String jobType) {
        return jobTypes.of(jobType);
    }

    /** An attempt of {@code execution} fired {@code latenessMs} after its due time. */
    void fired(String jobType, long latenessMs, String taskId, String executionId, String owner) {
        String label = jobType(jobType);
        if (latenessMs > settings.lateFireMs()) {
            lastLateFires.put(label, new PartitionSnapshot.Named(label, taskId, executionId, owner, latenessMs / 1000.0));
        }
        lateness.computeIfAbsent(label, this::firstFire).record(Math.max(0, latenessMs), TimeUnit.MILLISECONDS);
        count("ax.fired", "Attempts dispatched to ax.dispatch", "job_type", label);
    }

    /**
     * An attempt of {@code jobType} started {@code waitMs} after it was fired (or due, when dispatched ahead): one
     * in-memory histogram observation, nothing else.
     */
    void started(String jobType, long waitMs) {
        dispatchWaits.computeIfAbsent(jobType(jobType), l -> Timer.builder("ax.dispatch.wait")
                        .description("Fire (or due, when dispatched ahead) to handler start of every attempt reported STARTED")
                        .serviceLevelObjectives(WAIT_BUCKETS).tag("job_type", l).register(registry))
                .record(Math.max(0, waitMs), TimeUnit.MILLISECONDS);
    }

    /**
     * The first fire of a job type on this instance: its lateness histogram, and its dead-letter counter at 0, so that
     * the first dead letter is an increase the alert sees (a counter series born at 1 has no increase).
     */
    private Timer firstFire(String label) {
        counter(DEAD_LETTERS, DEAD_LETTERS_DESCRIPTION, Tags.of("job_type", label));
        return latenessHistogram(label, registry);
    }

    private static Timer latenessHistogram(String label, MeterRegistry registry) {
        return Timer.builder("ax.fire.lateness").description("Fire time minus due time of every attempt fired")
                .serviceLevelObjectives(LATENESS_BUCKETS).tag("job_type", label).register(registry);
    }

    void count(String name, String description, Tags tags) {
        counter(name, description, tags).increment();
    }

    /**
     * {@link #count(String, String, Tags)} for a counter of one tag, the form every task's path counts (accepted, fired,
     * succeeded): found by its name and tag value without building its {@link Tags} (sorted, allocated) or a key string,
     * which cost ~0.7 % of the stream thread per count while ingesting.
     */
    void count(String name, String description, String tag, String value) {
        Map<String, Counter> byValue = countersByValue.get(name);
        if (byValue == null) {
            byValue = countersByValue.computeIfAbsent(name, n -> new ConcurrentHashMap<>());
        }
        Counter counter = byValue.get(value);
        if (counter == null) {
            counter = byValue.computeIfAbsent(value, v -> counter(name, description, Tags.of(tag, v)));
        }
        counter.increment();
    }

    private Counter counter(String name, String description, Tags tags) {
        StringBuilder key = new StringBuilder(name);
        tags.forEach(tag -> key.append('\0').append(tag.getValue()));
        return counters.computeIfAbsent(key.toString(), k -> Counter.builder(name).description(description).tags(tags).register(registry));
    }

    /** The latest failure of its job type; shown from the next {@link #publish} on (at most one refresh later). */
    void failed(PartitionSnapshot.Named failure) {
        lastFailures.put(failure.label(), failure);
    }

    /** The latest dead letter of its job type; shown from the next {@link #publish} on (at most one refresh later). */
    void deadLettered(PartitionSnapshot.Named letter) {
        lastDeadLetters.put(letter.label(), letter);
    }

    void publish(int partition, PartitionSnapshot snapshot) {
        partitions.put(partition, snapshot);
        republish();
    }

    /** The partition moved away (or the instance stops): its gauges go. */
    void forget(int partition) {
        partitions.remove(partition);
        indexCounts.remove(partition);
        republish();
    }

    /** The counters of {@code partition}'s task index, while this instance processes it ({@link #indexCounts(int)}). */
    void indexCounts(int partition, IndexCounts counts) {
        indexCounts.put(partition, counts);
    }

    /** The counters of {@code partition}'s task index as last written, or null if no stream task here has it open. */
    public IndexCounts indexCounts(int partition) {
        return indexCounts.get(partition);
    }

    private synchronized void republish() {
        List<MultiGauge.Row<?>> pending = new ArrayList<>();
        List<MultiGauge.Row<?>> overdue = new ArrayList<>();
        List<PartitionSnapshot.Named> oldest = new ArrayList<>();
        Map<String, Long> flight = new HashMap<>();
        Map<String, Long> longCount = new HashMap<>();
        List<PartitionSnapshot.Named> longest = new ArrayList<>();
        partitions.forEach((partition, snapshot) -> {
            Tags tags = Tags.of("partition", Integer.toString(partition));
            pending.add(MultiGauge.Row.of(tags, snapshot.pending()));
            overdue.add(MultiGauge.Row.of(tags, snapshot.overdue()));
            if (snapshot.oldestOverdue() != null) {
                oldest.add(snapshot.oldestOverdue());
            }
            snapshot.inFlight().forEach((jobType, n) -> flight.merge(jobType, n, Long::sum));
            snapshot.runningLong().forEach((jobType, n) -> longCount.merge(jobType, n, Long::sum));
            longest.addAll(snapshot.longest());
        });
        timersPending.register(pending, true);
        tasksOverdue.register(overdue, true);
        oldestOverdue.register(rows(oldest, "partition"), true);
        inFlight.register(byJobType(flight), true);
        runningLong.register(byJobType(longCount), true);
        longest.sort(Comparator.comparingDouble(PartitionSnapshot.Named::seconds).reversed());
        longRunning.register(rows(longest.subList(0, Math.min(longest.size(), settings.longRunningListed())), "job_type"), true);
        lastFailure.register(rows(lastFailures.values(), "job_type"), true);
        lastLateFire.register(rows(lastLateFires.values(), "job_type"), true);
        lastDeadLetter.register(rows(lastDeadLetters.values(), "job_type"), true);
    }

    private static List<MultiGauge.Row<?>> byJobType(Map<String, Long> counts) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        counts.forEach((jobType, n) -> rows.add(MultiGauge.Row.of(Tags.of("job_type", jobType), n)));
        return rows;
    }

    /** Rows naming one execution each; {@code first} is the name of the label whose value is {@link PartitionSnapshot.Named#label}. */
    private static List<MultiGauge.Row<?>> rows(Iterable<PartitionSnapshot.Named> named, String first) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (PartitionSnapshot.Named n : named) {
            rows.add(MultiGauge.Row.of(Tags.of(first, n.label(), "task_id", n.taskId(), "execution_id",
                    n.executionId() == null ? "" : n.executionId(), "owner", n.owner() == null ? "" : n.owner()), n.seconds()));
        }
        return rows;
    }
}
