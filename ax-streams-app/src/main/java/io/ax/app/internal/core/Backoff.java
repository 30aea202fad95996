package io.ax.app.internal.core;

import io.ax.schema.ScheduleRequest;
import java.util.List;
import java.util.SplittableRandom;

/**
 * How long a failed execution waits before retry {@code n} (1 = the first retry).
 *
 * <ul>
 *   <li>An explicit list ({@code backoffIntervalsMs}, e.g. 5s, 30s, 2m, 10m, 30m): entry n, the last one
 *       repeating. Not capped: the user chose it.</li>
 *   <li>Otherwise exponential: {@code base x 2^(n-1)}, capped at {@code ax.retry.backoff.max.ms}; the base is
 *       the task's {@code backoffMs} or {@code ax.retry.backoff.ms}.</li>
 *   <li>Jitter (on unless the task says {@code jitter=false}): <b>equal jitter</b>, a delay d becomes a value in
 *       {@code [d/2, d)}. Chosen over full jitter ({@code [0, d)}) because it keeps at least half the backoff the
 *       user asked for (a retry never comes at once after a failure) while still spreading executions that
 *       failed together over half the window, so a failed dependency is not hit by a synchronized retry storm.</li>
 * </ul>
 * The jitter is a deterministic function of (executionId, n): different executions spread out, and a
 * re-processed input (after a rebalance or an aborted transaction) yields the same delay.
 */
public final class Backoff {
    private Backoff() {
    }

    public static long delayMs(ScheduleRequest request, int retry, String executionId, long defaultBaseMs, long maxMs) {
        long delayMs = undelayed(request, retry, defaultBaseMs, maxMs);
        if (!request.getJitter()) {
            return delayMs;
        }
        long half = delayMs / 2;
        return half + (long) (fraction(executionId, retry) * (delayMs - half));
    }

    private static long undelayed(ScheduleRequest request, int retry, long defaultBaseMs, long maxMs) {
        List<Long> intervals = request.getBackoffIntervalsMs();
        if (!intervals.isEmpty()) {
            return intervals.get(Math.min(retry, intervals.size()) - 1);
        }
        long baseMs = request.getBackoffMs() != null ? request.getBackoffMs() : defaultBaseMs;
        int doublings = retry - 1;
        if (doublings >= 62 || baseMs > (maxMs >> doublings)) {
            return maxMs;
        }
        return baseMs << doublings;
    }

    /** Uniform in [0, 1), fixed for (executionId, retry). */
    static double fraction(String executionId, int retry) {
        return new SplittableRandom(executionId.hashCode() * 0x9E3779B97F4A7C15L + retry).nextDouble();
    }
}
