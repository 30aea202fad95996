package io.ax.worker.idempotency;

import io.ax.worker.JobContext;
import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a handler's database effect happen once per executionId across a fleet of workers: each attempt runs in
 * one transaction that first inserts the executionId into a table where it is the primary key, then runs the
 * handler with the same {@link Connection}, then commits both together. A redelivered execution whose effect
 * already committed hits the duplicate key and is answered {@link Result#alreadyDone()} (a success) without running the handler;
 * a concurrent delivery of the same execution waits on the row lock of the first one's insert, then does the
 * same. Any failure (a returned failure, an exception) rolls back both, so the next attempt runs again.
 *
 * <p>Standard SQL only (an INSERT and a duplicate key recognised by SQLState class 23), tested against PostgreSQL
 * and H2; the table is:
 * <pre>
 * CREATE TABLE ax_executions (execution_id VARCHAR(200) PRIMARY KEY, task_id VARCHAR(512) NOT NULL,
 *                             attempt INT NOT NULL, completed_at_ms BIGINT NOT NULL)
 * </pre>
 * created by {@link #createTableIfMissing()} or by your migrations. Rows are never deleted by ax: purge old
 * ones (by {@code completed_at_ms}) once no redelivery can reach them, e.g. after a few days. Thread-safe.
 */
public final class JdbcIdempotencyGuard {
    /** The default table name. */
    public static final String DEFAULT_TABLE = "ax_executions";

    private static final Logger log = LoggerFactory.getLogger(JdbcIdempotencyGuard.class);
    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final DataSource dataSource;
    private final String table;
    private final Clock clock;

    private JdbcIdempotencyGuard(DataSource dataSource, String table, Clock clock) {
        this.dataSource = dataSource;
        this.table = table;
        this.clock = clock;
    }

    /** A guard over {@link #DEFAULT_TABLE} in {@code dataSource}, stamping rows with the system UTC clock. */
    public static JdbcIdempotencyGuard create(DataSource dataSource) {
        return create(dataSource, DEFAULT_TABLE, Clock.systemUTC());
    }

    /** @param table a plain or schema-qualified SQL identifier */
    public static JdbcIdempotencyGuard create(DataSource dataSource, String table, Clock clock) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(clock, "clock");
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("table must be a plain SQL identifier: " + table);
        }
        return new JdbcIdempotencyGuard(dataSource, table, clock);
    }

    /** Creates the table when it does not exist (works on PostgreSQL, MySQL/MariaDB and H2). */
    public void createTableIfMissing() throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + table + " (execution_id VARCHAR(200) PRIMARY KEY, "
                    + "task_id VARCHAR(512) NOT NULL, attempt INT NOT NULL, completed_at_ms BIGINT NOT NULL)");
        }
    }

    /** Wraps {@code handler} so its effect and the execution's marker commit together, once per executionId. */
    public JobHandler guard(TransactionalJobHandler handler) {
        Objects.requireNonNull(handler, "handler");
        return context -> run(context, handler);
    }

    private Result run(JobContext context, TransactionalJobHandler handler) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                if (!insertMarker(connection, context)) {
                    connection.rollback();
                    log.info("Effect of taskId={} executionId={} already committed; not running it again",
                            context.taskId(), context.executionId());
                    return Result.alreadyDone();
                }
                Result result = handler.handle(context, connection);
                if (result != null && result.isSuccess()) {
                    connection.commit();
                } else {
                    connection.rollback();
                }
                return result;
            } catch (Exception | Error e) {
                rollbackQuietly(connection, e);
                throw e;
            }
        }
    }

    /** @return false when the executionId is already there: its effect committed before */
    private boolean insertMarker(Connection connection, JobContext context) throws SQLException {
        String sql = "INSERT INTO " + table + " (execution_id, task_id, attempt, completed_at_ms) VALUES (?, ?, ?, ?)";
        try (PreparedStatement insert = connection.prepareStatement(sql)) {
            insert.setString(1, context.executionId());
            insert.setString(2, context.taskId());
            insert.setInt(3, context.attempt());
            insert.setLong(4, clock.millis());
            insert.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (isDuplicateKey(e)) {
                return false;
            }
            throw e;
        }
    }

    private static boolean isDuplicateKey(SQLException e) {
        for (SQLException next = e; next != null; next = next.getNextException()) {
            if (next.getSQLState() != null && next.getSQLState().startsWith("23")) {
                return true;
            }
        }
        return false;
    }

    private static void rollbackQuietly(Connection connection, Throwable cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
