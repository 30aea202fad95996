package io.ax.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The chaos suite ({@link ChaosScenario}) through {@code ax bench chaos}: three scheduler instances, a worker fleet on
 * PostgreSQL, kill -9 of two instances and a broker restart under load (SIGTERM of the single broker; kill -9 of one of
 * three with {@code -Dax.chaos.brokers=3}; {@code -Dax.chaos.brokerStop=kill|term} to choose), then every guarantee checked. CI runs a short
 * version (3,000 tasks over 45 s, one broker); the long one by command, sized by system properties:
 * <pre>
 * mvn -o -pl ax-bench -am test -Dtest=ChaosIT -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dax.chaos.tasks=20000 -Dax.chaos.duration=150 -Dax.chaos.brokers=3
 * </pre>
 * (or {@code ./ax bench chaos --tasks 20000 [--brokers 3]}, which prints the same lines).
 */
@Tag("integration")
@Tag("chaos")
@Isolated // kills brokers and instances on a schedule: alone, not beside BenchSmokeIT's scenarios (which run two at a time)
class ChaosIT {
    private static final int TASKS = Integer.getInteger("ax.chaos.tasks", 3_000);
    private static final int DURATION_S = Integer.getInteger("ax.chaos.duration", 45);
    private static final int BROKERS = Integer.getInteger("ax.chaos.brokers", 1);
    /** kill or term; unset: the scenario's default (term for one broker, kill for a cluster). */
    private static final String BROKER_STOP = System.getProperty("ax.chaos.brokerStop");

    @Test
    @Timeout(1_800)
    void shouldKeepEveryGuaranteeThroughInstanceAndBrokerKills() {
        List<String> args = new ArrayList<>(List.of("chaos", "--tasks", Integer.toString(TASKS),
                "--duration", Integer.toString(DURATION_S), "--brokers", Integer.toString(BROKERS)));
        if (BROKER_STOP != null) {
            args.addAll(List.of("--broker-stop", BROKER_STOP));
        }
        List<Map<String, String>> lines = bench(args.toArray(String[]::new));
        Map<String, String> chaos = lines.get(0);
        assertThat(chaos).containsEntry("scenario", "chaos").containsEntry("n", Integer.toString(TASKS))
                .containsEntry("kills", "2").containsEntry("broker_kills", "1");
        assertThat(lines.stream().skip(1).map(l -> l.get("event")))
                .contains("kill_a", "kill_b", "broker_kill", "broker_back", "restarted_a", "restarted_b");
        assertThat(chaos).as("guarantees; the full line: %s", chaos)
                .containsEntry("lost", "0").containsEntry("early", "0").containsEntry("dup", "0")
                .containsEntry("exec_dup", "0").containsEntry("attempt_gaps", "0").containsEntry("missing_retries", "0")
                .containsEntry("not_final", "0").containsEntry("final", "SUCCESS:" + TASKS)
                .containsEntry("effects", Integer.toString(TASKS)).containsEntry("effects_missing", "0")
                .containsEntry("effects_dup", "0").containsEntry("passed", "yes");
        assertThat(Long.parseLong(chaos.get("retries"))).as("every tenth task retried once").isGreaterThanOrEqualTo(TASKS / 10);
    }

    private static List<Map<String, String>> bench(String... args) {
        return BenchRun.results(args);
    }
}
