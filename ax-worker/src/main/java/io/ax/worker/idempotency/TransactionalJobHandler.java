package io.ax.worker.idempotency;

import io.ax.worker.JobContext;
import io.ax.worker.Result;
import java.sql.Connection;

/**
 * A handler whose effect is written through the given JDBC {@link Connection}, inside the transaction that also
 * records the execution as done. It must not commit, roll back or close the connection: the
 * {@link JdbcIdempotencyGuard} commits when it returns {@link Result#success()} and rolls back otherwise.
 */
@FunctionalInterface
public interface TransactionalJobHandler {
    /** Runs the attempt described by {@code context}, writing its effect through {@code connection}. */
    Result handle(JobContext context, Connection connection) throws Exception;
}
