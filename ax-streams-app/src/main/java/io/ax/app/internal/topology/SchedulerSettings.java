package io.ax.app.internal.topology;

import io.ax.app.internal.flow.LimitsChanges;
import io.ax.app.internal.setup.OutputBounds;
import org.apache.kafka.common.utils.Time;
import io.ax.AxTopics;
import io.ax.app.internal.core.RuleSettings;
import io.ax.app.internal.timer.ConsumerPositions;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.timer.ClockSteps;
import io.ax.app.internal.timer.StreamThreads;
import io.ax.codec.RegistryCodec;
import io.ax.validation.ScheduleLimits;
import io.ax.app.internal.workers.WorkerRegistrySettings;
import java.time.Clock;

/**
 * The parts of {@link AxConfig} the topology uses, as one immutable value.
 *
 * @param farHorizonMs   how far beyond the wheel's horizon timers are held in memory alone ({@code ax.wheel.far.horizon.ms}, {@link
 *                       io.ax.app.internal.timer.Timers})
 * @param maxClockSkewMs how far producers' clocks may run ahead: see {@link io.ax.app.internal.timer.InputWatermarks}
 * @param partitions the partition count of the co-partitioned input topics, or 0 when unknown (then records
 *                   are not checked for being on their key's partition)
 * @param adoptEnabled whether {@code AdoptRequest}s (from {@code ./ax migrate}) are taken; refused otherwise
 * @param priorityAgingMs how much earlier a due time one priority level is worth when a backlog is fired
 *                        ({@link io.ax.app.internal.timer.TimingWheel})
 * @param metrics the instance's metrics, which every stream task records into
 * @param historyMaxEvents how many state changes each task's history keeps (see {@link io.ax.app.internal.store.TaskHistory})
 * @param inputCodec decodes the inputs, with the schema registry of {@code ax.schema.registry.url} if one is set
 * @param registryOutput the registered schema ids dispatches and dead letters are written with, or null for
 *                       single-object encoding ({@code ax.output.format})
 * @param flowPartitions the flow topic's partition count, or 0 when unknown (then flow records are not checked for
 *                       being on their gate key's partition)
 * @param fireBudgetMs   the longest one partition's punctuation fires timers, wall clock ({@code ax.fire.budget.ms})
 * @param time           the clock that budget is measured with (Kafka's {@code Time.SYSTEM} in a running scheduler)
 * @param limitsChanges  counts the changes of the global limits store, so its readers may cache what they read
 * @param clockSteps     the instance's wall-clock step detector, on {@code time} ({@code ax.clock.step.threshold.ms}),
 *                       shared by every partition's punctuation and every stream thread's consumer
 * @param workers        the worker registry's settings ({@code ax.workers.*})
 * @param threads        where each stream thread's processors find the wake-ups they publish for its consumer
 */
public record SchedulerSettings(AxTopics topics, int partitions, long tickMs, int wheelSize, int maxWheelTimers, long farHorizonMs,
                                int fireBatchMax, long defaultTimeoutMs, long defaultBackoffMs, long maxBackoffMs,
                                long retentionMs, long dispatchAheadMs, long misfireThresholdMs, ScheduleLimits limits, long maxClockSkewMs,
                                ConsumerPositions positions, boolean adoptEnabled, int historyMaxEvents,
                                long priorityAgingMs, SchedulerMetrics metrics, RegistryCodec inputCodec,
                                RegistryOutput registryOutput, int flowPartitions, long fireBudgetMs, Time time,
                                LimitsChanges limitsChanges, ClockSteps clockSteps, WorkerRegistrySettings workers,
                                StreamThreads threads) {

    /**
     * The settings of a running scheduler: its stream threads' consumers, made by a client supplier given the same
     * {@code threads}, tell the processors how far the inputs are read and learn their wake-ups.
     */
    public static SchedulerSettings from(AxConfig config, int partitions, StreamThreads threads, SchedulerMetrics metrics) {
        return from(config, partitions, threads.positions(), threads, metrics);
    }

    /**
     * @param positions where the consumer stands on each input: {@link ConsumerPositions#SYNCHRONOUS} under
     *                  TopologyTestDriver (whose processors' wake-ups nobody reads)
     */
    public static SchedulerSettings from(AxConfig config, int partitions, ConsumerPositions positions, SchedulerMetrics metrics) {
        return from(config, partitions, positions, new StreamThreads(), metrics);
    }

    private static SchedulerSettings from(AxConfig config, int partitions, ConsumerPositions positions, StreamThreads threads,
                                          SchedulerMetrics metrics) {
        return new SchedulerSettings(config.topics(), partitions, config.tickMs(), config.getInt(AxConfig.WHEEL_SIZE_CONFIG),
                config.getInt(AxConfig.WHEEL_MAX_TIMERS_CONFIG), config.getLong(AxConfig.WHEEL_FAR_HORIZON_MS_CONFIG),
                config.getInt(AxConfig.FIRE_BATCH_MAX_CONFIG),
                config.getLong(AxConfig.DEFAULT_TIMEOUT_MS_CONFIG), config.getLong(AxConfig.RETRY_BACKOFF_MS_CONFIG),
                config.getLong(AxConfig.RETRY_BACKOFF_MAX_MS_CONFIG), config.getLong(AxConfig.RETENTION_MS_CONFIG),
                config.getLong(AxConfig.DISPATCH_AHEAD_MS_CONFIG), config.getLong(AxConfig.MISFIRE_THRESHOLD_MS_CONFIG), config.limits(),
                config.getLong(AxConfig.MAX_CLOCK_SKEW_MS_CONFIG), positions, config.getBoolean(AxConfig.ADOPT_ENABLED_CONFIG),
                config.getInt(AxConfig.HISTORY_MAX_EVENTS_CONFIG), config.getLong(AxConfig.PRIORITY_AGING_MS_CONFIG), metrics,
                RegistryCodec.of(config.registrySettings(), Clock.systemUTC()), RegistryOutput.from(config), 0,
                config.getLong(AxConfig.FIRE_BUDGET_MS_CONFIG), Time.SYSTEM, new LimitsChanges(),
                new ClockSteps(Time.SYSTEM, config.getLong(AxConfig.CLOCK_STEP_THRESHOLD_MS_CONFIG)), config.workerRegistry(),
                threads);
    }

    /** The same settings with the flow topic's partition count known. */
    public SchedulerSettings withFlowPartitions(int count) {
        return new SchedulerSettings(topics, partitions, tickMs, wheelSize, maxWheelTimers, farHorizonMs, fireBatchMax, defaultTimeoutMs,
                defaultBackoffMs, maxBackoffMs, retentionMs, dispatchAheadMs, misfireThresholdMs, limits, maxClockSkewMs, positions,
                adoptEnabled, historyMaxEvents, priorityAgingMs, metrics, inputCodec, registryOutput, count, fireBudgetMs, time, limitsChanges,
                clockSteps, workers, threads);
    }

    /** The same settings with the fire budget measured, and clock steps noticed, by {@code clock} (tests drive it). */
    public SchedulerSettings withTime(Time clock) {
        return new SchedulerSettings(topics, partitions, tickMs, wheelSize, maxWheelTimers, farHorizonMs, fireBatchMax, defaultTimeoutMs,
                defaultBackoffMs, maxBackoffMs, retentionMs, dispatchAheadMs, misfireThresholdMs, limits, maxClockSkewMs, positions,
                adoptEnabled, historyMaxEvents, priorityAgingMs, metrics, inputCodec, registryOutput, flowPartitions, fireBudgetMs, clock,
                limitsChanges, new ClockSteps(clock, clockSteps.thresholdMs()), workers, threads);
    }

    /** The settings of the pure rules. */
    public RuleSettings rules() {
        return new RuleSettings(defaultTimeoutMs, defaultBackoffMs, maxBackoffMs, retentionMs, dispatchAheadMs, misfireThresholdMs, limits, false, adoptEnabled);
    }

    /** The largest input value that can be valid: the largest payload plus the other fields' bounds. */
    public int maxInputBytes() {
        return OutputBounds.maxRecordBytes(limits.maxPayloadBytes());
    }
}
