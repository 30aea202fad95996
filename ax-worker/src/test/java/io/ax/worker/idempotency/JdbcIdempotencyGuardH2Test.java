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
}
