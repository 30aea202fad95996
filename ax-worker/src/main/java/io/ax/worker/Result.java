package io.ax.worker;

import java.util.Objects;

/**
 * How an attempt ended: success, a retryable failure (the scheduler retries while the task's retries last)
 * or a fatal one (the execution fails for good). Immutable.
 */
public final class Result {
    private static final Result SUCCESS = new Result(true, false, null, false);
    private static final Result ALREADY_DONE = new Result(true, false, null, true);

    private final boolean success;
    private final boolean retryable;
    private final String message;
    private final boolean alreadyDone;

    private Result(boolean success, boolean retryable, String message, boolean alreadyDone) {
        this.success = success;
        this.retryable = retryable;
        this.message = message;
        this.alreadyDone = alreadyDone;
    }

    /** The attempt did its work. */
    public static Result success() {
        return SUCCESS;
    }

    /**
     * A success without running the handler: the execution's effect was done before (an idempotency guard found it
     * on a redelivery). Reported as a success; counted in {@code ax_worker_redeliveries_skipped_total}.
     */
    public static Result alreadyDone() {
        return ALREADY_DONE;
    }

    /** The attempt failed but another may succeed (a timeout, an unavailable dependency). */
    public static Result retryable(String message) {
        return new Result(false, true, message, false);
    }

    /** The attempt failed and retrying cannot help (bad payload, permanent refusal). */
    public static Result fatal(String message) {
        return new Result(false, false, message, false);
    }

    public boolean isSuccess() {
        return success;
    }

    /** True only for a retryable failure. */
    public boolean isRetryable() {
        return retryable;
    }

    /** True for {@link #alreadyDone()}: a success whose handler did not run again. */
    public boolean isAlreadyDone() {
        return alreadyDone;
    }

    /** The failure's explanation, or {@code null}. */
    public String message() {
        return message;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Result that && success == that.success && retryable == that.retryable
                && Objects.equals(message, that.message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(success, retryable, message);
    }

    @Override
    public String toString() {
        if (success) {
            return alreadyDone ? "Result.alreadyDone()" : "Result.success()";
        }
        return (retryable ? "Result.retryable(" : "Result.fatal(") + message + ")";
    }
}
