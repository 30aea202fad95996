package io.ax.worker.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.ArrayList;
import java.util.List;
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

    @Test
    void shouldCommitTheEffectOnceWhenTheSameExecutionRunsConcurrently() throws Exception {
        CountDownLatch bothStarted = new CountDownLatch(1);
        JobHandler handler = guard.guard((context, connection) -> {
            runs.incrementAndGet();
            try (Statement s = connection.createStatement()) {
                s.executeUpdate("INSERT INTO effects (task_id) VALUES ('t1')");
            }
            bothStarted.await(1, TimeUnit.SECONDS); // hold the marker uncommitted while the duplicate arrives
            return Result.success();
        });
        TestJobContext context = TestJobContext.builder("t1").build();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<Result>> results = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                results.add(threads.submit(() -> HandlerTester.create().run(handler, context)));
            }
            for (Future<Result> result : results) {
                assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo(Result.success());
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(runs).hasValue(1);
        assertThat(count("SELECT COUNT(*) FROM effects")).isEqualTo(1);
    }

    @Test
    void shouldRefuseATableNameThatIsNotAPlainIdentifier() {
        assertThatThrownBy(() -> JdbcIdempotencyGuard.create(dataSource(), "x; DROP TABLE y", Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("table must be a plain SQL identifier: x; DROP TABLE y");
    }
}
