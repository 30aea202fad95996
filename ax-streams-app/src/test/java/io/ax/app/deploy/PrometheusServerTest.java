package io.ax.app.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@link PrometheusServer} fixture against the real Prometheus server, and the shipped rules loaded into it. */
@Tag("integration")
class PrometheusServerTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @BeforeEach
    void needsTheBinary() {
        assumeTrue(PrometheusServer.binary().isPresent(), PrometheusServer.MISSING);
    }

    @Test
    void shouldScrapeItself() {
        try (PrometheusServer prometheus = PrometheusServer.builder().scrapeItself().start()) {
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                    assertThat(prometheus.samples("up{job=\"prometheus\"} == 1")).singleElement()
                            .satisfies(up -> assertThat(up.labels()).containsEntry("instance", "127.0.0.1:" + prometheus.port())));
        }
    }

    @Test
    void shouldShowAnAlwaysFiringAlertAsFiring(@TempDir Path dir) throws IOException {
        Path rules = dir.resolve("always.yml");
        Files.writeString(rules, """
                groups:
                  - name: fixture
                    rules:
                      - alert: AlwaysFiring
                        expr: vector(1)
                        for: 0s
                        labels:
                          severity: none
                        annotations:
                          summary: "fires from the first evaluation on"
                """);
        try (PrometheusServer prometheus = PrometheusServer.builder().rules(rules).start()) {
            await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
                    assertThat(prometheus.alerts("AlwaysFiring", "firing")).singleElement().satisfies(alert -> {
                        assertThat(alert.labels()).containsOnly(entry("alertname", "AlwaysFiring"), entry("severity", "none"));
                        assertThat(alert.annotations()).containsOnly(entry("summary", "fires from the first evaluation on"));
                        assertThat(alert.value()).isEqualTo(1.0);
                    }));
        }
    }

    /**
     * The shipped rules (every {@code for:} at 0s) in the real server, scraping a stand-in for a scheduler's
     * {@code /metrics} that requires a bearer token: the failure-rate alert fires with the execution to look at.
     */
    @Test
    void shouldFireTheShippedFailureRateAlertFromATokenProtectedTarget(@TempDir Path dir) throws IOException {
        String token = "test-token";
        AtomicInteger scrapes = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        HttpServer target = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        target.createContext("/metrics", exchange -> {
            try (exchange) {
                if (!("Bearer " + token).equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                    refused.incrementAndGet();
                    exchange.sendResponseHeaders(401, -1);
                    return;
                }
                int n = scrapes.incrementAndGet();
                byte[] body = metrics(n).getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        target.start();
        String address = "127.0.0.1:" + target.getAddress().getPort();
        Path rules = PrometheusServer.withoutForDurations(PrometheusServer.shippedRules(), dir);
        try (PrometheusServer prometheus = PrometheusServer.builder()
                .scrape(PrometheusServer.SCHEDULER_JOB, List.of(address), token)
                .rules(rules).start()) {
            await().atMost(WAIT).pollInterval(Duration.ofMillis(250)).untilAsserted(() ->
                    assertThat(prometheus.alerts("AxJobFailureRateHigh", "firing")).singleElement().satisfies(alert -> {
                        assertThat(alert.labels()).containsOnly(entry("alertname", "AxJobFailureRateHigh"),
                                entry("severity", "warning"), entry("job", "ax-scheduler"), entry("job_type", "email"),
                                entry("task_id", "invoice-7"), entry("execution_id", "invoice-7:1"), entry("owner", "billing"),
                                entry("instance", address));
                        assertThat(alert.value()).isCloseTo(0.1, within(1e-9));
                        assertThat(alert.annotations())
                                .containsEntry("summary", "email fails 10% of its attempts (> 1%)")
                                .containsEntry("status_command", "./ax status invoice-7 --http " + address)
                                .containsEntry("execution_api", "GET http://" + address + "/executions/invoice-7:1");
                    }));
            assertThat(refused).as("every scrape carried the token").hasValue(0);
            assertThat(prometheus.alerts()).extracting(PrometheusServer.Alert::name)
                    .as("a scheduler is scraped and fires").doesNotContain("AxSchedulerAbsent", "AxSchedulerDown");
            assertThat(prometheus.ruleGroups().findValues("health")).isNotEmpty()
                    .allSatisfy(health -> assertThat(health.asText()).isEqualTo("ok"));
        } finally {
            target.stop(0);
        }
    }

    /** A scheduler's metrics at its n-th scrape: one failed attempt of email for every nine that succeed. */
    private static String metrics(int n) {
        return """
                # HELP ax_executions_failed_total attempts that ended in failure
                # TYPE ax_executions_failed_total counter
                ax_executions_failed_total{job_type="email"} %d.0
                # HELP ax_executions_succeeded_total attempts that ended SUCCESS
                # TYPE ax_executions_succeeded_total counter
                ax_executions_succeeded_total{job_type="email"} %d.0
                # HELP ax_fired_total attempts dispatched
                # TYPE ax_fired_total counter
                ax_fired_total{job_type="email"} %d.0
                # HELP ax_last_failure_timestamp_seconds when the latest failed attempt of each job type failed
                # TYPE ax_last_failure_timestamp_seconds gauge
                ax_last_failure_timestamp_seconds{job_type="email",task_id="invoice-7",execution_id="invoice-7:1",owner="billing"} 1.7E9
                """.formatted(n, 9 * n, 10 * n);
    }
}
