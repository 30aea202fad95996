package io.ax.worker.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker's metrics ({@code topology-docs/METRICS.md}, section Worker), in the {@link MeterRegistry} given to
 * {@code AxWorker.Builder.meterRegistry}; without one they go to an empty composite registry, which records nothing.
 * Job types are the worker's own handlers', so the label set is bounded by its code. Thread-safe.
 */
public final class WorkerMetrics {
    /** Buckets of {@code ax_worker_handler_duration_seconds}. */
    private static final Duration[] DURATION_BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(25), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(1),
            Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofHours(1)};

    /** Buckets of {@code ax_worker_dispatch_wait_seconds}: around the 1 s scale-out threshold, up to 5 minutes. */
    private static final Duration[] WAIT_BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
            Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofMinutes(5)};

    private final MeterRegistry registry;
    private final Map<String, Timer> waits = new ConcurrentHashMap<>();
    private final Map<String, Timer> durations = new ConcurrentHashMap<>();
    private final Map<String, Counter> skipped = new ConcurrentHashMap<>();
    private final AtomicInteger pausedPartitions = new AtomicInteger();

    public WorkerMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("ax.worker.paused.partitions", pausedPartitions, AtomicInteger::get)
                .description("ax.dispatch partitions paused because a lane is full").register(registry);
    }

    /** Records nothing. */
    public static WorkerMetrics none() {
        return new WorkerMetrics(new CompositeMeterRegistry());
    }

    /** How a handler ended: {@code success}, {@code failure} or {@code cancelled}. */
    void handled(String jobType, String outcome, long nanos) {
        durations.computeIfAbsent(jobType + '\0' + outcome, key -> Timer.builder("ax.worker.handler.duration")
                        .description("Handler run time").serviceLevelObjectives(DURATION_BUCKETS)
                        .tag("job_type", jobType).tag("outcome", outcome).register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * A handler of {@code jobType} starts {@code waitMs} after its dispatch was fired, or due when it was dispatched
     * ahead (scheduler's clock, read from the dispatch, to this worker's); negative, from clocks apart, counts as 0.
     */
    void dispatchWait(String jobType, long waitMs) {
        waits.computeIfAbsent(jobType, type -> Timer.builder("ax.worker.dispatch.wait")
                        .description("Dispatch fire (or due, when dispatched ahead) to handler start")
                        .serviceLevelObjectives(WAIT_BUCKETS).tag("job_type", type).register(registry))
                .record(Math.max(0, waitMs), TimeUnit.MILLISECONDS);
    }

    /** A dispatch the idempotency guard found done already: the handler did not run again. */
    void redeliverySkipped(String jobType) {
        skipped.computeIfAbsent(jobType, type -> Counter.builder("ax.worker.redeliveries.skipped")
                .description("Dispatches the idempotency guard found already done").tag("job_type", type).register(registry))
                .increment();
    }

    void pausedPartitions(int paused) {
        pausedPartitions.set(paused);
    }

    /**
     * The gauges of each lane (handlers running, dispatches waiting for a slot), and each job type's counters at 0, so
     * that a rate over them exists before the first event.
     */
    void lanes(Lanes lanes, Iterable<String> jobTypes) {
        for (String jobType : jobTypes) {
            skipped.computeIfAbsent(jobType, type -> Counter.builder("ax.worker.redeliveries.skipped")
                    .description("Dispatches the idempotency guard found already done").tag("job_type", type).register(registry));
            Gauge.builder("ax.worker.executions.running", lanes, l -> l.running(jobType))
                    .description("Handlers running now").tag("job_type", jobType).register(registry);
            Gauge.builder("ax.worker.lane.queue.depth", lanes, l -> l.waiting(jobType))
                    .description("Dispatches received and waiting for a free slot of their lane").tag("job_type", jobType)
                    .register(registry);
        }
    }
}
