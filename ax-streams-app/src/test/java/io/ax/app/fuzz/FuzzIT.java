package io.ax.app.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzz, broker level: the corpus, then generated hostile inputs, sent to a real scheduler ({@link AxScheduler},
 * exactly-once, RocksDB) over the embedded KRaft broker, spread over {@value #PARTITIONS} partitions, each followed by
 * a canary on its partition (see {@link BrokerFuzzRun}). Each test runs its own scheduler on its own topics. The fast
 * level is {@code io.ax.app.internal.topology.FuzzTopologyTest}.
 *
 * <p>The broker accepts records up to {@value BrokerFuzzRun#MAX_INPUT_BYTES} bytes and any timestamp, so every hostile
 * input reaches the scheduler; the scheduler's own clients keep their defaults (so an output over 1 MiB fails as it
 * would in production).
 *
 * <p>CI sends {@value #CI_COUNT} generated inputs. A larger run:
 * <pre>
 * mvn -B -ntp -pl ax-streams-app -am test -Dtest=FuzzIT -Dsurefire.failIfNoSpecifiedTests=false -Dax.fuzz.count=2000
 * ... -Dax.fuzz.seed=random          (the seed is printed with the figures and in every failure)
 * </pre>
 */
@Tag("integration")
@Tag("fuzz")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FuzzIT {
    static final int CI_COUNT = 240;
    static final int PARTITIONS = 3;
    /** Give up waiting when no output arrived for this long: the scheduler has stopped. */
    private static final Duration STALL_WINDOW = Duration.ofSeconds(15);
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                .withProperty("message.max.bytes", Integer.toString(BrokerFuzzRun.MAX_INPUT_BYTES + (1 << 20)))
                .withProperty("log.message.timestamp.before.max.ms", Long.toString(Long.MAX_VALUE))
                .withProperty("log.message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE)));
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    private static AxConfig config(String name, Path stateDir) {
        return new AxConfig(Map.of(
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "fuzz-" + name,
                AxConfig.TOPIC_PREFIX_CONFIG, "fuzz-" + name + ".",
                AxConfig.TOPIC_PARTITIONS_CONFIG, PARTITIONS,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
    }

    @Test
    @Order(1)
    void shouldAnswerEveryCorpusInputAndKeepEveryPartitionMoving(@TempDir Path stateDir) throws Exception {
        List<HostileInput> corpus = FuzzCorpus.load();
        FuzzFigures figures = new FuzzFigures("embedded broker, corpus (" + corpus.size() + " entries)");
        FuzzFailures failures = new FuzzFailures("broker-corpus");
        String stalls = fuzz(config("corpus", stateDir), figures, failures, corpus, Duration.ofSeconds(60));
        assertThat(failures.isEmpty() && stalls.isEmpty()).as(() -> stalls + "\n" + failures.report(corpus.size(), null)).isTrue();
    }

    @Test
    @Order(2)
    void shouldAnswerEveryGeneratedInputAndKeepEveryPartitionMoving(@TempDir Path stateDir) throws Exception {
        FuzzSettings settings = FuzzSettings.fromSystemProperties(CI_COUNT);
        HostileInputs generator = new HostileInputs(settings.seed());
        List<HostileInput> inputs = settings.indexes().stream().map(generator::get).toList();
        FuzzFigures figures = new FuzzFigures("embedded broker, generated, " + settings);
        FuzzFailures failures = new FuzzFailures("broker-generated");
        Duration atMost = Duration.ofSeconds(60).plusMillis(50L * inputs.size());
        String stalls = fuzz(config("generated", stateDir), figures, failures, inputs, atMost);
        assertThat(failures.isEmpty() && stalls.isEmpty()).as(() -> settings + stalls + "\n" + failures.report(inputs.size(),
                settings.reproduce("FuzzIT#shouldAnswerEveryGeneratedInputAndKeepEveryPartitionMoving", failures.indexes()))).isTrue();
    }

    /** Sends every input with a canary after it, waits for the answers, judges; returns the stalled partitions. */
    private static String fuzz(AxConfig config, FuzzFigures figures, FuzzFailures failures, List<HostileInput> inputs,
                               Duration atMost) throws Exception {
        try (AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2));
             BrokerFuzzRun run = new BrokerFuzzRun(broker.bootstrapServers(), config.topics(), PARTITIONS, figures)) {
            for (int i = 0; i < inputs.size(); i++) {
                run.send(inputs.get(i), i);
            }
            run.awaitAnswers(atMost, STALL_WINDOW);
            String stalls = run.judge(failures);
            return stalls.isEmpty() ? stalls : stalls + "\nscheduler state at the end: " + scheduler.state();
        } finally {
            System.out.println(figures.report());
        }
    }
}
