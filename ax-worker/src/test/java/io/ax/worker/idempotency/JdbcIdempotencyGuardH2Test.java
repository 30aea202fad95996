package io.ax.worker.idempotency;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The JDBC guard against H2 in its MySQL/MariaDB compatibility mode (row locks on the primary key, MVStore). */
class JdbcIdempotencyGuardH2Test extends JdbcIdempotencyGuardContract {
    private final JdbcDataSource dataSource = new JdbcDataSource();

    JdbcIdempotencyGuardH2Test() {
        dataSource.setURL("jdbc:h2:mem:guard;MODE=MariaDB;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        dataSource.setUser("sa");
    }

    @Override
    DataSource dataSource() {
        return dataSource;
    }

    /**
     * H2 leaves {@code BLOCKER_ID} empty while an insert waits for another transaction's row, but shows the statement
     * as still executing; a marker insert that runs on while the first delivery's marker is uncommitted is waiting
     * for it (one that found no conflict would have ended at once).
     */
    @Override
    String markerInsertsWaitingSql() {
        return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE EXECUTING_STATEMENT LIKE 'INSERT INTO ax_executions %'";
    }
}
