package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.app.config.AxConfig;
import io.ax.app.internal.timer.ConsumerPositions;
import io.ax.app.internal.metrics.SchedulerMetrics;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ColdStartTest {
    @Test
    void shouldRunAnAcceptAndAFireThroughTheCodecsAndTheRules() {
        AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1"));
        SchedulerSettings settings = SchedulerSettings.from(config, 6, ConsumerPositions.SYNCHRONOUS,
                new SchedulerMetrics(config.metricsSettings()));

        // accept: PENDING event + task record; fire: TRIGGERED event + dispatch + task record
        assertThat(ColdStart.once(settings)).as("records made by the accept and the fire").isGreaterThanOrEqualTo(5);
        assertThat(ColdStart.rounds(settings, 3, 60_000)).as("rounds, each a whole accept and fire").isEqualTo(3);
        ColdStart.run(settings, 3, 60_000); // this JVM's first scheduler (or an earlier test's) warmed it
        assertThat(ColdStart.run(settings, 3, 60_000)).as("once per JVM: the code is warm for every scheduler after").isZero();
    }

    @Test
    void shouldWarmTheMetricsOfAFireInARegistryNoSchedulerServes() {
        AxConfig config = new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:1"));
        SchedulerMetrics metrics = new SchedulerMetrics(config.metricsSettings());

        assertThat(SchedulerMetrics.warmUp()).as("a lateness observed in the throwaway histogram").isEqualTo(1);
        assertThat(metrics.scrape()).as("nothing of it on a scheduler's metrics")
                .doesNotContain("warm-up").doesNotContain("ax_fire_lateness").doesNotContain("ax_fired_total");
    }
}
