package io.ax.app.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped alert rules ({@code docker/prometheus/ax-alerts.yml}) pass {@code promtool check rules} and their unit
 * tests ({@code ax-alerts.test.yml}, {@code promtool test rules}), and every alert has a unit test. Skipped, with the
 * reason, where promtool is not installed.
 */
class AlertRulesTest {
    private static final String PROMTOOL_MISSING = "Debian's prometheus package provides it: apt-get install prometheus"
            + " (.ci/run does)";
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final Pattern ALERT = Pattern.compile("(?m)^\\s*- alert:\\s*(\\S+)\\s*$");
    private static final Pattern FOR = Pattern.compile("(?m)^\\s*for:\\s*(\\S+)\\s*$");

    private final Path prometheusDir = RepositoryFiles.alertRules().getParent();

    @Test
    void shouldPassPromtoolCheckRules() {
        ExternalTool promtool = ExternalTool.require("promtool", PROMTOOL_MISSING);
        ExternalTool.Run run = promtool.run(prometheusDir, TIMEOUT, "check", "rules", "ax-alerts.yml");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.output()).as(run.toString()).contains("SUCCESS").doesNotContain("FAILED");
    }

    @Test
    void shouldPassItsPromtoolUnitTests() {
        ExternalTool promtool = ExternalTool.require("promtool", PROMTOOL_MISSING);
        ExternalTool.Run run = promtool.run(prometheusDir, TIMEOUT, "test", "rules", "ax-alerts.test.yml");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.output()).as(run.toString()).contains("SUCCESS").doesNotContain("FAILED");
    }

    @Test
    void shouldHaveAUnitTestForEveryAlert() throws IOException {
        List<String> alerts = matches(ALERT, Files.readString(RepositoryFiles.alertRules(), StandardCharsets.UTF_8));
        String tests = Files.readString(prometheusDir.resolve("ax-alerts.test.yml"), StandardCharsets.UTF_8);
        assertThat(alerts).contains("AxFireLatenessHigh", "AxJobFailureRateHigh", "AxBacklogHigh", "AxBacklogCritical",
                "AxExecutionRunningLong", "AxSchedulerDown", "AxSchedulerAbsent", "AxSchedulerNotFiring", "AxDeadLetter",
                "AxDispatchWaitHigh", "AxWorkerDead");
        assertThat(alerts).allSatisfy(alert -> assertThat(tests).as("a test of " + alert).contains("alertname: " + alert + "\n"));
    }

    @Test
    void shouldSelectTheScrapeJobsTheFixtureAndComposeName() throws IOException {
        String rules = Files.readString(RepositoryFiles.alertRules(), StandardCharsets.UTF_8);
        assertThat(rules).contains("{job=\"" + PrometheusServer.SCHEDULER_JOB + "\"}")
                .contains("{job=\"" + PrometheusServer.WORKER_JOB + "\"}")
                .doesNotContainPattern("\\{job=\"(?!ax-scheduler\"|ax-worker\")");
    }

    @Test
    void shouldCopyTheRulesWithEveryForDurationAtZero(@TempDir Path dir) throws IOException {
        String shipped = Files.readString(RepositoryFiles.alertRules(), StandardCharsets.UTF_8);
        Path copy = PrometheusServer.withoutForDurations(RepositoryFiles.alertRules(), dir);
        String copied = Files.readString(copy, StandardCharsets.UTF_8);

        assertThat(matches(FOR, shipped)).hasSameSizeAs(matches(ALERT, shipped)).anySatisfy(d -> assertThat(d).isNotEqualTo("0s"));
        assertThat(matches(FOR, copied)).hasSameSizeAs(matches(ALERT, shipped)).containsOnly("0s");
        assertThat(copied.replaceAll("(?m)^(\\s*)for:.*$", "$1for:")).isEqualTo(shipped.replaceAll("(?m)^(\\s*)for:.*$", "$1for:"));
        ExternalTool.find("promtool").ifPresent(promtool -> {
            ExternalTool.Run run = promtool.run(dir, TIMEOUT, "check", "rules", copy.toString());
            assertThat(run.exitCode()).as(run.toString()).isZero();
        });
    }

    private static List<String> matches(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        List<String> found = new ArrayList<>();
        while (matcher.find()) {
            found.add(matcher.group(1));
        }
        return found;
    }
}
