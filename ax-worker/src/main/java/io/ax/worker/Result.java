package io.ax.worker;

import java.util.Objects;

/**
 * How an attempt ended: success, a retryable failure (the scheduler retries while the task's retries last)
 * or a fatal one (the execution fails for good). Immutable.
 */
public final class Result {
    private static final Result SUCCESS = new Result(true, false, null);

    private final boolean success;
    private final boolean retryable;
    private final String message;

    private Result(boolean success, boolean retryable, String message) {
        this.success = success;
        this.retryable = retryable;
        this.message = message;
    }

    /** The attempt did its work. */
    public static Result success() {
        return SUCCESS;
    }

    /** The attempt failed but another may succeed (a timeout, an unavailable dependency). */
    public static Result retryable(String message) {
        return new Result(false, true, message);
    }

    /** The attempt failed and retrying cannot help (bad payload, permanent refusal). */
    public static Result fatal(String message) {
        return new Result(false, false, message);
    }

    public boolean isSuccess() {
        return success;
    }

    /** True only for a retryable failure. */
    public boolean isRetryable() {
        return retryable;
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
            return "Result.success()";
        }
        return (retryable ? "Result.retryable(" : "Result.fatal(") + message + ")";
    }
}
