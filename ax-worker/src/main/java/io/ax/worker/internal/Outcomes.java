package io.ax.worker.internal;

import io.ax.worker.Result;
import java.util.List;

/**
 * Turns what a handler did into a {@link Result}: its own result, or for an exception a retryable failure
 * unless the exception is an instance of a type declared fatal (subclasses included). Immutable.
 */
public final class Outcomes {
    private final List<Class<? extends Throwable>> fatalTypes;

    public Outcomes(List<Class<? extends Throwable>> fatalTypes) {
        this.fatalTypes = List.copyOf(fatalTypes);
    }

    public Result of(Result returned) {
        return returned != null ? returned : Result.retryable("the handler returned null instead of a Result");
    }

    public Result of(Throwable thrown) {
        String message = thrown.getMessage() == null ? thrown.getClass().getName()
                : thrown.getClass().getName() + ": " + thrown.getMessage();
        return isFatal(thrown) ? Result.fatal(message) : Result.retryable(message);
    }

    private boolean isFatal(Throwable thrown) {
        for (Class<? extends Throwable> type : fatalTypes) {
            if (type.isInstance(thrown)) {
                return true;
            }
        }
        return false;
    }
}
