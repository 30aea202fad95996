package io.ax.app.internal.topology;

import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.validation.ScheduleLimits;

/** The parts of {@link AxConfig} the topology uses, as one immutable value. */
public record SchedulerSettings(AxTopics topics, long tickMs, int wheelSize, int maxWheelTimers, int fireBatchMax,
                                long defaultTimeoutMs, long defaultBackoffMs, long maxBackoffMs, long retentionMs,
                                ScheduleLimits limits) {

    public static SchedulerSettings from(AxConfig config) {
        return new SchedulerSettings(config.topics(), config.tickMs(), config.getInt(AxConfig.WHEEL_SIZE_CONFIG),
                config.getInt(AxConfig.WHEEL_MAX_TIMERS_CONFIG), config.getInt(AxConfig.FIRE_BATCH_MAX_CONFIG),
                config.getLong(AxConfig.DEFAULT_TIMEOUT_MS_CONFIG), config.getLong(AxConfig.RETRY_BACKOFF_MS_CONFIG),
                config.getLong(AxConfig.RETRY_BACKOFF_MAX_MS_CONFIG), config.getLong(AxConfig.RETENTION_MS_CONFIG),
                config.limits());
    }
}
