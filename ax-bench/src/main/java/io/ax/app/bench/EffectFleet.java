package io.ax.app.bench;

import io.ax.AxTopics;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import io.ax.worker.idempotency.JdbcIdempotencyGuard;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import javax.sql.DataSource;

/**
 * The chaos run's worker fleet: {@code workers} {@link AxWorker}s in this JVM, one consumer group, each handler
 * behind a {@link JdbcIdempotencyGuard} on one embedded PostgreSQL. The effect of a task is one row in
 * {@code effects} (task id, execution id), inserted in the guard's transaction, so a committed effect and its
 * execution's marker commit together. Tasks that {@code failsOnce} answer their first attempt with a retryable
 * failure (nothing commits), so their retry goes through the scheduler's RETRY_WAITING and the chaos around it.
 *
 * <p>{@code effects} has no unique key on purpose: a second effect of one execution would be a row, and is counted
 * ({@link #duplicateEffects()}), not refused.
 */
final class EffectFleet implements AutoCloseable {
    static final String JOB_TYPE = Submitter.JOB_TYPE;

    private final EmbeddedPostgres postgres;
    private final String ours;
    private final DataSource db;
    private final List<AxWorker> workers = new ArrayList<>();
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong failedOnPurpose = new AtomicLong();

    private EffectFleet(EmbeddedPostgres postgres, TaskKeys keys) {
        this.postgres = postgres;
        // the counts are of the measured tasks only (not of a warm-up task); the prefix is ours, not user input
        this.ours = " FROM effects WHERE task_id LIKE '" + keys.prefix().replace("'", "''") + "%'";
        this.db = postgres.getPostgresDatabase();
    }

    /** Starts PostgreSQL (data in {@code dataDir}), creates the tables, starts the workers. */
    static EffectFleet start(Path dataDir, Map<String, Object> kafka, AxTopics topics, String groupId, int workerCount,
                             int concurrency, TaskKeys keys, int n, IntPredicate failsOnce, Clock clock)
            throws IOException, SQLException {
        EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dataDir).setCleanDataDirectory(true).start();
        EffectFleet fleet = new EffectFleet(postgres, keys);
        try {
            fleet.createTables();
            for (int i = 1; i <= workerCount; i++) {
                AxWorker worker = fleet.worker(kafka, topics, groupId, "chaos-worker-" + i, concurrency, keys, n,
                        failsOnce, clock);
                fleet.workers.add(worker);
                worker.start();
            }
            return fleet;
        } catch (RuntimeException | SQLException e) {
            fleet.close();
            throw e;
        }
    }

    private void createTables() throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE effects (task_id VARCHAR(100) NOT NULL, execution_id VARCHAR(200) NOT NULL, attempt INT NOT NULL)");
        }
        JdbcIdempotencyGuard.create(db).createTableIfMissing();
    }

    private AxWorker worker(Map<String, Object> kafka, AxTopics topics, String groupId, String workerId, int concurrency,
                            TaskKeys keys, int n, IntPredicate failsOnce, Clock clock) {
        JdbcIdempotencyGuard guard = JdbcIdempotencyGuard.create(db);
        return AxWorker.builder().connectionProperties(kafka).topics(topics).clock(clock).groupId(groupId)
                .workerId(workerId)
                .handler(JOB_TYPE, concurrency, guard.guard((context, connection) -> {
                    runs.incrementAndGet();
                    int index = keys.indexOf(context.taskId(), n);
                    if (index >= 0 && failsOnce.test(index) && context.attempt() == 1) {
                        failedOnPurpose.incrementAndGet();
                        return Result.retryable("chaos: task " + context.taskId() + " fails its first attempt");
                    }
                    try (PreparedStatement effect = connection.prepareStatement(
                            "INSERT INTO effects (task_id, execution_id, attempt) VALUES (?, ?, ?)")) {
                        effect.setString(1, context.taskId());
                        effect.setString(2, context.executionId());
                        effect.setInt(3, context.attempt());
                        effect.executeUpdate();
                    }
                    return Result.success();
                }))
                .build();
    }

    /** Committed effects of the measured tasks (rows in {@code effects}). */
    long effects() throws SQLException {
        return count("SELECT COUNT(*)" + ours);
    }

    /** Distinct tasks with a committed effect. */
    long tasksWithEffect() throws SQLException {
        return count("SELECT COUNT(DISTINCT task_id)" + ours);
    }

    /** Effects beyond the first of their execution. */
    long duplicateEffects() throws SQLException {
        return count("SELECT COUNT(*) - COUNT(DISTINCT execution_id)" + ours);
    }

    /** Tasks with effects of more than one execution (a one-shot task has one). */
    long tasksWithSeveralExecutions() throws SQLException {
        return count("SELECT COUNT(*) FROM (SELECT task_id" + ours + " GROUP BY task_id HAVING COUNT(DISTINCT execution_id) > 1) t");
    }

    /** Handler runs, also the rolled-back ones (failed first attempts); the guard answers an execution whose effect committed before without a run. */
    long runs() {
        return runs.get();
    }

    long failedOnPurpose() {
        return failedOnPurpose.get();
    }

    /** The first worker failure, if one stopped. */
    String workerFailures() {
        StringBuilder failures = new StringBuilder();
        for (AxWorker worker : workers) {
            worker.failure().ifPresent(f -> failures.append(worker.workerId()).append(": ").append(f).append("; "));
        }
        return failures.toString();
    }

    private long count(String sql) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    /** Stops the workers, then PostgreSQL. */
    @Override
    public void close() throws IOException {
        for (AxWorker worker : workers) {
            worker.close();
        }
        postgres.close();
    }
}
