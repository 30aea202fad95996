package io.ax.worker.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import io.ax.worker.testing.HandlerTester;
import io.ax.worker.testing.TestJobContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the JDBC guard promises, run against each database engine by a subclass. */
abstract class JdbcIdempotencyGuardContract {
    private final AtomicInteger runs = new AtomicInteger();
    private JdbcIdempotencyGuard guard;

    abstract DataSource dataSource();

    @BeforeEach
    void freshTables() throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS effects");
            s.execute("DROP TABLE IF EXISTS ax_executions");
            s.execute("CREATE TABLE effects (task_id VARCHAR(100) NOT NULL)");
        }
        guard = JdbcIdempotencyGuard.create(dataSource(), JdbcIdempotencyGuard.DEFAULT_TABLE, Clock.systemUTC());
        guard.createTableIfMissing();
        guard.createTableIfMissing(); // idempotent
    }

    private JobHandler writingEffect(Result result) {
        return guard.guard((context, connection) -> {
            runs.incrementAndGet();
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO effects (task_id) VALUES (?)")) {
                insert.setString(1, context.taskId());
                insert.executeUpdate();
            }
            return result;
        });
    }

    private int count(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getInt(1);
        }
    }

    @Test
    void shouldAnswerARedeliveredExecutionWhoseEffectCommittedWithSuccessWithoutRunningIt() throws Exception {
        JobHandler handler = writingEffect(Result.success());
        TestJobContext context = TestJobContext.builder("t1").build();

        assertThat(handler.handle(context)).isEqualTo(Result.success());
        assertThat(handler.handle(context)).isEqualTo(Result.success());

        assertThat(runs).hasValue(1);
        assertThat(count("SELECT COUNT(*) FROM effects")).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM ax_executions")).isEqualTo(1);
    }

    @Test
    void shouldRollBackTheEffectAndTheMarkerWhenTheHandlerFailsSoTheNextAttemptRuns() throws Exception {
        TestJobContext context = TestJobContext.builder("t1").build();

        assertThat(writingEffect(Result.retryable("later")).handle(context)).isEqualTo(Result.retryable("later"));
        JobHandler throwing = guard.guard((ctx, connection) -> {
            try (Statement s = connection.createStatement()) {
                s.executeUpdate("INSERT INTO effects (task_id) VALUES ('t1')");
            }
            throw new IllegalStateException("boom");
        });
        assertThatThrownBy(() -> throwing.handle(context)).hasMessage("boom");
        assertThat(count("SELECT COUNT(*) FROM effects")).isZero();

        assertThat(writingEffect(Result.success()).handle(context)).isEqualTo(Result.success());
        assertThat(count("SELECT COUNT(*) FROM effects")).isEqualTo(1);
    }

    /**
     * SQL counting the sessions whose marker insert into {@code ax_executions} is waiting: how the test sees, from
     * outside, that the duplicate delivery has reached the first one's uncommitted marker and waits on it.
     */
    abstract String markerInsertsWaitingSql();

    /**
     * The two deliveries provably overlap: the duplicate starts only once the first is inside its handler (a latch
     * counted down there), and the first does not commit until the database shows the duplicate's marker insert
     * waiting on the first one's uncommitted marker row, both within deadlines. The duplicate never enters the
     * handler (that is the guarantee), so nothing inside the handler could wait for it; the database's own view of
     * the waiting insert is the proof instead.
     */
    @Test
    void shouldCommitTheEffectOnceWhenTheSameExecutionRunsConcurrently() throws Exception {
        CountDownLatch firstInHandler = new CountDownLatch(1);
        JobHandler handler = guard.guard((context, connection) -> {
            runs.incrementAndGet();
            try (Statement s = connection.createStatement()) {
                s.executeUpdate("INSERT INTO effects (task_id) VALUES ('t1')");
            }
            firstInHandler.countDown();
            // Hold the marker and the effect uncommitted until the duplicate delivery waits on the marker.
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> count(markerInsertsWaitingSql()), n -> n >= 1);
            return Result.success();
        });
        TestJobContext context = TestJobContext.builder("t1").build();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<Result> first = threads.submit(() -> HandlerTester.create().run(handler, context));
            assertThat(firstInHandler.await(10, TimeUnit.SECONDS)).as("the first delivery reached its handler").isTrue();
            Future<Result> duplicate = threads.submit(() -> HandlerTester.create().run(handler, context));

            Result firstResult = first.get(20, TimeUnit.SECONDS);
            Result duplicateResult = duplicate.get(20, TimeUnit.SECONDS);
            assertThat(firstResult).isEqualTo(Result.success());
            assertThat(firstResult.isAlreadyDone()).isFalse();
            assertThat(duplicateResult).isEqualTo(Result.success());
            assertThat(duplicateResult.isAlreadyDone()).as("the duplicate found the committed marker").isTrue();
        } finally {
            threads.shutdownNow();
        }
        assertThat(runs).hasValue(1);
        assertThat(count("SELECT COUNT(*) FROM effects")).isEqualTo(1);
        assertThat(count("SELECT COUNT(*) FROM ax_executions")).isEqualTo(1);
    }

    @Test
    void shouldRefuseATableNameThatIsNotAPlainIdentifier() {
        assertThatThrownBy(() -> JdbcIdempotencyGuard.create(dataSource(), "x; DROP TABLE y", Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("table must be a plain SQL identifier: x; DROP TABLE y");
    }
}
