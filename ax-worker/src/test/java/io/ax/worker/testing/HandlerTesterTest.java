package io.ax.worker.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import org.junit.jupiter.api.Test;

class HandlerTesterTest {
    private final TestJobContext context = TestJobContext.builder("invoice-42").jobType("email").payload("{\"to\":\"a@b.c\"}").build();

    @Test
    void shouldJudgeAHandlerAsTheWorkerWould() {
        HandlerTester tester = HandlerTester.create().fatalExceptions(IllegalArgumentException.class);

        assertThat(tester.run(c -> Result.success(), context)).isEqualTo(Result.success());
        assertThat(tester.run(c -> null, context)).isEqualTo(Result.retryable("the handler returned null instead of a Result"));
        assertThat(tester.run(c -> {
            throw new IllegalStateException("down");
        }, context)).isEqualTo(Result.retryable("java.lang.IllegalStateException: down"));
        assertThat(tester.run(c -> {
            throw new NumberFormatException("nan");
        }, context)).isEqualTo(Result.fatal("java.lang.NumberFormatException: nan"));
    }

    @Test
    void shouldLetATestSeeHeartbeatsAndSignalCancellation() {
        JobHandler chunked = c -> {
            for (int chunk = 0; chunk < 3 && !c.isCancelled(); chunk++) {
                c.heartbeat();
            }
            return c.isCancelled() ? Result.fatal("cancelled") : Result.success();
        };

        assertThat(HandlerTester.create().run(chunked, context)).isEqualTo(Result.success());
        assertThat(context.heartbeats()).isEqualTo(3);
        assertThat(context.payloadAsString()).isEqualTo("{\"to\":\"a@b.c\"}");

        context.cancel();
        assertThat(HandlerTester.create().run(chunked, context)).isEqualTo(Result.fatal("cancelled"));
    }
}
