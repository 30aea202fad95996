package io.ax.app.it.worker;

import io.ax.AxTopics;
import io.ax.worker.AxWorker;
import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import io.ax.worker.idempotency.JdbcIdempotencyGuard;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A worker whose "effect" is a row in {@code effects}, written in the JDBC guard's transaction; every run of the
 * handler (also the ones rolled back or cut short) adds a row to {@code runs} outside it, so a test can tell
 * executions from committed effects. {@link #main} runs it as a child JVM that a test kills with kill -9.
 */
public final class EffectWorker {
    static final Duration WORK = Duration.ofMillis(20);

    private EffectWorker() {
    }

    static void createTables(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS effects (task_id VARCHAR(100) NOT NULL, execution_id VARCHAR(200) NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS runs (task_id VARCHAR(100) NOT NULL)");
        }
        JdbcIdempotencyGuard.create(dataSource).createTableIfMissing();
    }

    static AxWorker build(String bootstrap, AxTopics topics, DataSource dataSource, String workerId) {
        JdbcIdempotencyGuard guard = JdbcIdempotencyGuard.create(dataSource);
        JobHandler handler = guard.guard((context, connection) -> {
            try (Connection runs = dataSource.getConnection();
                 PreparedStatement run = runs.prepareStatement("INSERT INTO runs (task_id) VALUES (?)")) {
                run.setString(1, context.taskId());
                run.executeUpdate();
            }
            try (PreparedStatement effect = connection.prepareStatement("INSERT INTO effects (task_id, execution_id) VALUES (?, ?)")) {
                effect.setString(1, context.taskId());
                effect.setString(2, context.executionId());
                effect.executeUpdate();
            }
            Thread.sleep(WORK.toMillis()); // the job's own work, so that many are in flight at once
            return Result.success();
        });
        return AxWorker.builder().bootstrapServers(bootstrap).topics(topics).groupId(topics.prefix() + "workers")
                .workerId(workerId).handler("effect", 32, handler)
                // a killed worker's partitions move to the survivor after this, not after the 45 s default
                .consumerProperty("session.timeout.ms", 6000).consumerProperty("heartbeat.interval.ms", 1000)
                .build();
    }

    static DataSource dataSource(String jdbcUrl) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(jdbcUrl);
        return dataSource;
    }

    /** args: bootstrap servers, topic prefix, JDBC url, worker id. Runs until killed. */
    public static void main(String[] args) {
        AxWorker worker = build(args[0], new AxTopics(args[1]), dataSource(args[2]), args[3]);
        Runtime.getRuntime().addShutdownHook(new Thread(worker::close));
        worker.start();
    }
}
