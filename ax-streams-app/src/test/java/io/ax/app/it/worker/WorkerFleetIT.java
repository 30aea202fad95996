package io.ax.app.it.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.worker.AxWorker;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker SDK as a fleet runs it, end to end: client → scheduler → dispatch → workers whose effects are rows
 * in a real PostgreSQL, written through the JDBC idempotency guard → results → SUCCESS on the state topic.
 */
@Tag("integration")
class WorkerFleetIT {
    private static final int TASKS = 500;
    private static EmbeddedKafkaBroker broker;
    private static EmbeddedPostgres postgres;

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
        postgres = EmbeddedPostgres.builder().start();
    }

    @AfterAll
    static void stop() throws Exception {
        postgres.close();
        broker.close();
    }

    private static AxConfig config(String prefix, Path stateDir) {
        return new AxConfig(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "it-" + prefix,
                AxConfig.TOPIC_PREFIX_CONFIG, prefix,
                AxConfig.TOPIC_PARTITIONS_CONFIG, 3,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
    }

    /** A fresh database per test, so counts never mix. */
    private static String database(String name) throws SQLException {
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return postgres.getJdbcUrl("postgres", name);
    }

    private static void submit(AxClient client, int n) {
        List<CompletableFuture<?>> acks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            acks.add(client.schedule("task-" + i).jobType("effect").after(Duration.ZERO).submit());
        }
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
    }

    private static int count(DataSource dataSource, String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getInt(1);
        }
    }

    private static Process childWorker(String prefix, String jdbcUrl, String workerId, Path logDir) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), EffectWorker.class.getName(),
                broker.bootstrapServers(), prefix, jdbcUrl, workerId);
        File log = logDir.resolve(workerId + ".log").toFile();
        return builder.redirectErrorStream(true).redirectOutput(log).start();
    }

    @Test
    void shouldCommitEveryEffectExactlyOnceWhenAWorkerIsKilledWithTasksInFlight(@TempDir Path dir) throws Exception {
        String prefix = "wk9.";
        String jdbcUrl = database("killnine");
        DataSource db = EffectWorker.dataSource(jdbcUrl);
        EffectWorker.createTables(db);
        AxTopics topics = config(prefix, dir).topics();
        long startNs = System.nanoTime();
        try (AxScheduler scheduler = AxScheduler.start(config(prefix, dir)).awaitRunning(Duration.ofMinutes(2));
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             SuccessCounter successes = new SuccessCounter(broker.bootstrapServers(), topics.state())) {
            Process first = childWorker(prefix, jdbcUrl, "doomed", dir);
            Process second = null;
            try {
                submit(client, TASKS);
                await().atMost(Duration.ofSeconds(60)).until(() -> count(db, "SELECT COUNT(*) FROM effects") >= TASKS / 4);

                first.destroyForcibly(); // SIGKILL: no shutdown hook, no close, no commit
                first.waitFor();
                int effectsAtKill = count(db, "SELECT COUNT(*) FROM effects");
                int successAtKill = successes.count();
                second = childWorker(prefix, jdbcUrl, "survivor", dir);

                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> successes.count() == TASKS);
                long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
                int runs = count(db, "SELECT COUNT(*) FROM runs");
                System.out.printf("RESULT worker-kill9 tasks=%d effects_at_kill=%d success_at_kill=%d runs=%d "
                                + "duplicate_runs=%d committed_effects=%d elapsed_ms=%d%n", TASKS, effectsAtKill, successAtKill,
                        runs, runs - TASKS, count(db, "SELECT COUNT(*) FROM effects"), elapsedMs);

                assertThat(effectsAtKill).as("killed half-way").isLessThan(TASKS);
                assertThat(count(db, "SELECT COUNT(*) FROM effects")).isEqualTo(TASKS);
                assertThat(count(db, "SELECT COUNT(DISTINCT task_id) FROM effects")).isEqualTo(TASKS);
                assertThat(count(db, "SELECT COUNT(*) FROM ax_executions")).isEqualTo(TASKS);
            } finally {
                first.destroyForcibly();
                if (second != null) {
                    second.destroy(); // SIGTERM: its shutdown hook closes the worker
                    second.waitFor();
                }
            }
        }
    }

    @Test
    void shouldLoseNothingWhenAWorkerShutsDownGracefullyUnderLoad(@TempDir Path dir) throws Exception {
        String prefix = "wkclose.";
        DataSource db = EffectWorker.dataSource(database("graceful"));
        EffectWorker.createTables(db);
        AxTopics topics = config(prefix, dir).topics();
        try (AxScheduler scheduler = AxScheduler.start(config(prefix, dir)).awaitRunning(Duration.ofMinutes(2));
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             SuccessCounter successes = new SuccessCounter(broker.bootstrapServers(), topics.state())) {
            AxWorker first = EffectWorker.build(broker.bootstrapServers(), topics, db, "first");
            first.start();
            submit(client, TASKS);
            await().atMost(Duration.ofSeconds(60)).until(() -> count(db, "SELECT COUNT(*) FROM effects") >= TASKS / 4);

            first.close(Duration.ofSeconds(10));
            int effectsAtClose = count(db, "SELECT COUNT(*) FROM effects");
            int runsAtClose = count(db, "SELECT COUNT(*) FROM runs");
            assertThat(first.isRunning()).isFalse();
            assertThat(runsAtClose).as("every handler that started before close finished and committed").isEqualTo(effectsAtClose);

            try (AxWorker second = EffectWorker.build(broker.bootstrapServers(), topics, db, "second")) {
                second.start();
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> successes.count() == TASKS);
            }
            System.out.printf("RESULT worker-graceful tasks=%d effects_at_close=%d runs=%d%n", TASKS, effectsAtClose,
                    count(db, "SELECT COUNT(*) FROM runs"));
            assertThat(effectsAtClose).as("closed half-way").isLessThan(TASKS);
            assertThat(count(db, "SELECT COUNT(*) FROM effects")).isEqualTo(TASKS);
            assertThat(count(db, "SELECT COUNT(DISTINCT task_id) FROM effects")).isEqualTo(TASKS);
            assertThat(count(db, "SELECT COUNT(*) FROM runs")).as("a graceful close runs nothing twice").isEqualTo(TASKS);
        }
    }
}
