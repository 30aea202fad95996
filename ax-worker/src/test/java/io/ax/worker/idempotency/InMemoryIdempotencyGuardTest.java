package io.ax.worker.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import io.ax.worker.testing.TestJobContext;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InMemoryIdempotencyGuardTest {
    private final InMemoryIdempotencyGuard guard = new InMemoryIdempotencyGuard(2);
    private final AtomicInteger runs = new AtomicInteger();

    @Test
    void shouldRunAnExecutionOnceSuccessfullyAndAnswerRedeliveriesWithSuccess() throws Exception {
        JobHandler handler = guard.guard(context -> {
            runs.incrementAndGet();
            return Result.success();
        });
        TestJobContext context = TestJobContext.builder("t1").build();

        assertThat(handler.handle(context)).isEqualTo(Result.success());
        assertThat(handler.handle(context)).isEqualTo(Result.success());
        assertThat(runs).hasValue(1);
        assertThat(guard.isDone(context.executionId())).isTrue();
    }

    @Test
    void shouldRunAgainAfterAFailure() throws Exception {
        JobHandler handler = guard.guard(context -> runs.incrementAndGet() == 1 ? Result.retryable("later") : Result.success());
        TestJobContext context = TestJobContext.builder("t1").build();

        assertThat(handler.handle(context)).isEqualTo(Result.retryable("later"));
        assertThat(handler.handle(context)).isEqualTo(Result.success());
        assertThat(runs).hasValue(2);
    }

    @Test
    void shouldForgetTheOldestExecutionsBeyondItsCapacity() throws Exception {
        JobHandler handler = guard.guard(context -> Result.success());
        for (String taskId : new String[] {"a", "b", "c"}) {
            handler.handle(TestJobContext.builder(taskId).build());
        }
        assertThat(guard.isDone("a-execution")).isFalse();
        assertThat(guard.isDone("c-execution")).isTrue();
    }
}
