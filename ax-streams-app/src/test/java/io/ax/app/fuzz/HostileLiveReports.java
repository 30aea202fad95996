package io.ax.app.fuzz;

import static io.ax.app.fuzz.HostileValues.pick;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Reports and cancels aimed at a live execution (see {@link LiveTarget}), where a hostile field reaches the state
 * machine: FAILED with huge messages (retry records, dead letters, error history), huge worker ids, progress
 * checkpoints, text that cannot be written back as JSON.
 */
final class HostileLiveReports {
    private static final String ID = "\"" + LiveTarget.EXECUTION_ID + "\"";

    private HostileLiveReports() {
    }

    static List<Maker> makers() {
        return List.of(HostileLiveReports::failedWithHugeText, HostileLiveReports::deadLetterWithHugeMessage,
                HostileLiveReports::repeatedFailures, HostileLiveReports::succeededOrStartedWithHugeText,
                HostileLiveReports::progressAtTheLimit, HostileLiveReports::edgeText, HostileLiveReports::extremeAttempt,
                HostileLiveReports::cancelWithHugeReason);
    }

    private static String report(String status, String extraFields) {
        return "{\"executionId\":" + ID + ",\"attempt\":" + LiveTarget.ATTEMPT + ",\"status\":\"" + status + "\"" + extraFields + "}";
    }

    private static HostileInput live(String detail, String json, LiveTarget target) {
        return HostileInput.of("results/live/" + detail, FuzzTopic.RESULTS, json).withLive(target);
    }

    /** A retryable failure whose message and worker id are each 600 kB: the RETRY_WAITING reason carries both. */
    static HostileInput failedWithHugeText(SplittableRandom random) {
        String message = HostileValues.hugeString(random);
        String worker = random.nextBoolean() ? HostileValues.hugeString(random) : "\"w\"";
        return live("failed-huge-message", report("FAILED", ",\"retryable\":true,\"message\":" + message + ",\"workerId\":" + worker),
                new LiveTarget(3, 1));
    }

    /** A non-retryable failure with a 600 kB message: FAILED, and a dead letter carrying the message twice. */
    static HostileInput deadLetterWithHugeMessage(SplittableRandom random) {
        return live("dead-letter-huge-message", report("FAILED", ",\"retryable\":false,\"message\":" + HostileValues.hugeString(random)),
                new LiveTarget(3, 1));
    }

    /** Three retryable failures of 400 kB each: the error history grows in the store and in the dead letter. */
    static HostileInput repeatedFailures(SplittableRandom random) {
        String message = "\"" + "m".repeat(400 * 1024) + "\"";
        return live("repeated-failures", report("FAILED", ",\"retryable\":true,\"message\":" + message), new LiveTarget(2, 3));
    }

    static HostileInput succeededOrStartedWithHugeText(SplittableRandom random) {
        String status = random.nextBoolean() ? "SUCCEEDED" : "STARTED";
        String field = pick(random, List.of("workerId", "message", "progress"));
        return live(status.toLowerCase() + "-huge-" + field, report(status, ",\"" + field + "\":" + HostileValues.hugeString(random)),
                new LiveTarget(3, 1));
    }

    /**
     * Progress of 4096 chars (the limit) or one more, in multi-byte text; a retry hands it on. (Not with HEARTBEAT:
     * a valid heartbeat is answered by nothing at all, so the oracle could not tell it from a lost input.)
     */
    static HostileInput progressAtTheLimit(SplittableRandom random) {
        int chars = 4096 + random.nextInt(2);
        String progress = "\"" + (random.nextBoolean() ? "p" : "\uD83D\uDE00").repeat(chars) + "\"";
        return live("progress-at-limit", report(random.nextBoolean() ? "STARTED" : "FAILED", ",\"retryable\":true,\"progress\":" + progress),
                new LiveTarget(3, 1));
    }

    /** Text the scheduler echoes into ax.state: NUL, lone surrogates, escapes. */
    static HostileInput edgeText(SplittableRandom random) {
        String field = pick(random, List.of("message", "workerId"));
        return live("edge-" + field, report("FAILED", ",\"retryable\":" + random.nextBoolean() + ",\"" + field + "\":"
                + pick(random, HostileValues.EDGE_STRINGS)), new LiveTarget(3, 1));
    }

    static HostileInput extremeAttempt(SplittableRandom random) {
        String attempt = pick(random, List.of("2147483647", "-2147483648", "0", "-1", "2"));
        return live("extreme-attempt", report("SUCCEEDED", "").replace(LiveTarget.ATTEMPT, attempt), new LiveTarget(3, 1));
    }

    /** A cancel of the running execution with a huge reason: CANCELLED event and a CANCEL dispatch. */
    static HostileInput cancelWithHugeReason(SplittableRandom random) {
        return HostileInput.of("requests/live/cancel-huge-reason", FuzzTopic.REQUESTS,
                "{\"cancel\":true,\"reason\":" + HostileValues.hugeString(random) + "}").withLive(new LiveTarget(3, 1));
    }
}
