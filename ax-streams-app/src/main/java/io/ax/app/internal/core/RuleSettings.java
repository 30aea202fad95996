package io.ax.app.internal.core;

import io.ax.validation.ScheduleLimits;

/**
 * The settings the rules use.
 *
 * @param dispatchAheadMs opt-in dispatch-ahead: an attempt may be dispatched this long before it is due
 * @param misfireThresholdMs a periodic occurrence fired later than this after its due time counts as missed
 * @param strict          throw on an illegal transition (tests) instead of ignoring the input with a reason
 */
public record RuleSettings(long defaultTimeoutMs, long defaultBackoffMs, long maxBackoffMs, long retentionMs,
                           long dispatchAheadMs, long misfireThresholdMs, ScheduleLimits limits, boolean strict,
                           boolean adoptEnabled) {
}
