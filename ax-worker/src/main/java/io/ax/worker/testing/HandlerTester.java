package io.ax.worker.testing;

import io.ax.worker.JobContext;
import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import io.ax.worker.internal.Outcomes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Runs a {@link JobHandler} on the calling thread and judges it exactly as the worker would: its returned
 * {@link Result}, a retryable failure for an exception unless its type was declared fatal, a retryable failure
 * for {@code null}. Configure it with the same {@link #fatalExceptions} as the worker. Immutable once built.
 */
public final class HandlerTester {
    private final List<Class<? extends Throwable>> fatalExceptions;

    private HandlerTester(List<Class<? extends Throwable>> fatalExceptions) {
        this.fatalExceptions = List.copyOf(fatalExceptions);
    }

    /** A tester with no fatal exception types. */
    public static HandlerTester create() {
        return new HandlerTester(List.of());
    }

    /** A copy that treats these exception types (and subclasses) as fatal, like {@code AxWorker.Builder.fatalExceptions}. */
    @SafeVarargs
    public final HandlerTester fatalExceptions(Class<? extends Throwable>... types) {
        List<Class<? extends Throwable>> all = new ArrayList<>(fatalExceptions);
        for (Class<? extends Throwable> type : types) {
            all.add(Objects.requireNonNull(type, "fatal exception type"));
        }
        return new HandlerTester(all);
    }

    /** Runs {@code handler} once with {@code context}; returns the result the worker would report. */
    public Result run(JobHandler handler, JobContext context) {
        Outcomes outcomes = new Outcomes(fatalExceptions);
        try {
            return outcomes.of(handler.handle(context));
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            return outcomes.of(e);
        }
    }
}
