package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.fuzz.FuzzSettings;
import io.ax.app.fuzz.Quarantine;
import io.ax.validation.ScheduleValidator;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzz of the timeout kinds and of heartbeats that ask for more time, through the topology in a TopologyTestDriver: a
 * task with {@code timeoutMs}, {@code scheduleToStartTimeoutMs}, {@code startToCloseTimeoutMs} and
 * {@code heartbeatTimeoutMs} each absent or at an extreme (1 ms to 10 years), then a random sequence of STARTED,
 * HEARTBEAT with {@code extendMs} at extremes (null, Long.MIN, negative, 0, past the limit, Long.MAX), reports for an
 * unknown execution or a stale attempt, and clock steps (a tick to years). A model of each attempt built from
 * topology-docs/TIMEOUTS.md gives the earliest moment a timeout may end it; the properties:
 * <ul>
 *   <li>no exception out of {@code pipeInput} or a punctuation, nothing quarantined;</li>
 *   <li>never early: an attempt is TIMED_OUT no earlier than the first limit that applies to it (extensions only
 *       push the start-to-close deadline, a negative or overflowing one never pulls it in), and an extension never
 *       moves that deadline past STARTED + 10 x {@code startToCloseTimeoutMs};</li>
 *   <li>one dispatch per (executionId, attempt); a report for an unknown execution or a stale attempt is answered on
 *       ax.state with its source.</li>
 * </ul>
 * CI runs {@value #CI_RUNS} sequences; {@code -Dax.fuzz.count=N} runs N, {@code -Dax.fuzz.seed=random} new ones:
 * <pre>
 * mvn -B -ntp -pl ax-streams-app -am test -Dtest=FuzzDeadlinesTest -Dsurefire.failIfNoSpecifiedTests=false -Dax.fuzz.count=500
 * </pre>
 */
@Tag("fuzz")
class FuzzDeadlinesTest {
    static final int CI_RUNS = 40;
    static final int STEPS = 40;
    private static final long DEFAULT_TIMEOUT_MS = 300_000;
    private static final long[] LIMITS = {1, 10, 1_000, 60_000, ScheduleValidator.MAX_DELAY_MS};
    private static final Long[] EXTENDS = {null, Long.MIN_VALUE, -1L, 0L, 1L, 1_000L, 60_000L, ScheduleValidator.MAX_DELAY_MS,
            Long.MAX_VALUE - 1, Long.MAX_VALUE};
    private static final long[] STEPS_MS = {0, 1, 10, 999, 1_000, 60_000, 300_000, 86_400_000L, ScheduleValidator.MAX_DELAY_MS};
    private static final Pattern EXTENDED_TO = Pattern.compile("extended to (\\S+Z)");

    @Test
    void shouldNeverTimeOutEarlyNorExtendPastTheCapWhateverTheHeartbeatsAsk(@TempDir Path stateRoot) {
        FuzzSettings settings = FuzzSettings.fromSystemProperties(CI_RUNS);
        List<String> failures = new ArrayList<>();
        int timeouts = 0;
        for (int run : settings.indexes()) {
            SplittableRandom random = new SplittableRandom(settings.seed() ^ (run * 0x9E3779B97F4A7C15L) ^ 0xDEAD);
            try (SchedulerHarness ax = new SchedulerHarness(stateRoot.resolve("deadlines-" + run), Map.of())) {
                Sequence sequence = new Sequence(ax, random);
                List<String> problems = sequence.play();
                timeouts += sequence.timeouts;
                if (!problems.isEmpty()) {
                    failures.add("sequence " + run + " (" + sequence.request + "):\n    " + String.join("\n    ", problems)
                            + "\n    steps: " + String.join("; ", sequence.steps));
                    if (failures.size() >= settings.stopAfterFailures()) {
                        break;
                    }
                }
            }
        }
        System.out.println("=== fuzz figures: deadlines, " + settings + " sequences, " + timeouts + " timeouts checked ===");
        assertThat(failures).as(() -> settings + ":\n" + String.join("\n", failures)).isEmpty();
    }

    private static final class Sequence {
        private final SchedulerHarness ax;
        private final SplittableRandom random;
        private final Long timeoutMs;
        private final Long scheduleToStartMs;
        private final Long startToCloseMs;
        private final Long heartbeatMs;
        final String request;
        final List<String> steps = new ArrayList<>();
        private final List<String> problems = new ArrayList<>();
        private final Set<String> dispatched = new HashSet<>();
        private String executionId;
        private int attempt;
        private long dispatchedAtMs;
        private long lastSignMs;
        private Long startedAtMs;
        private long deadlineAtMs;
        private boolean inFlight;
        int timeouts;

        Sequence(SchedulerHarness ax, SplittableRandom random) {
            this.ax = ax;
            this.random = random;
            timeoutMs = maybeLimit();
            scheduleToStartMs = maybeLimit();
            startToCloseMs = maybeLimit();
            heartbeatMs = maybeLimit();
            StringBuilder json = new StringBuilder("{\"jobType\":\"fz\",\"delayMs\":0,\"maxRetries\":" + random.nextInt(3)
                    + ",\"backoffMs\":1,\"jitter\":false");
            append(json, "timeoutMs", timeoutMs);
            append(json, "scheduleToStartTimeoutMs", scheduleToStartMs);
            append(json, "startToCloseTimeoutMs", startToCloseMs);
            append(json, "heartbeatTimeoutMs", heartbeatMs);
            request = json.append('}').toString();
        }

        private Long maybeLimit() {
            return random.nextBoolean() ? null : LIMITS[random.nextInt(LIMITS.length)];
        }

        private static void append(StringBuilder json, String field, Long value) {
            if (value != null) {
                json.append(",\"").append(field).append("\":").append(value);
            }
        }

        List<String> play() {
            ax.request("t", request);
            observe();
            advance(10);
            for (int i = 0; i < STEPS && problems.isEmpty(); i++) {
                switch (random.nextInt(8)) {
                    case 0 -> report("STARTED", null);
                    case 1, 2 -> report("HEARTBEAT", EXTENDS[random.nextInt(EXTENDS.length)]);
                    case 3 -> stale();
                    default -> advance(STEPS_MS[random.nextInt(STEPS_MS.length)]);
                }
            }
            return problems;
        }

        private void advance(long ms) {
            steps.add("advance " + ms);
            try {
                ax.advanceMs(ms);
            } catch (RuntimeException | Error e) {
                problems.add("punctuation threw " + TopologyFuzzRun.describe(e));
            }
            observe();
        }

        private void report(String status, Long extendMs) {
            if (executionId == null) {
                return;
            }
            steps.add(status + (extendMs == null ? "" : " extendMs " + extendMs) + " #" + attempt);
            String json = "{\"executionId\":\"" + executionId + "\",\"attempt\":" + attempt + ",\"status\":\"" + status + "\""
                    + (extendMs == null ? "" : ",\"extendMs\":" + extendMs) + "}";
            if (inFlight) { // signs of life, as the model counts them
                lastSignMs = ax.nowMs();
                if (status.equals("STARTED") && startedAtMs == null) {
                    startedAtMs = ax.nowMs();
                }
            }
            pipe(json);
            observe();
        }

        /** A report for an execution that does not exist, or for an attempt that is not the current one. */
        private void stale() {
            boolean unknown = executionId == null || random.nextBoolean();
            String id = unknown ? "no-such-execution" : executionId;
            int staleAttempt = unknown ? 1 : pick(attempt - 1, attempt + 1, 0, Integer.MAX_VALUE);
            String status = pick("STARTED", "HEARTBEAT", "SUCCEEDED", "FAILED");
            steps.add("stale " + status + " " + id + "#" + staleAttempt);
            String json = "{\"executionId\":\"" + id + "\",\"attempt\":" + staleAttempt + ",\"status\":\"" + status + "\""
                    + (status.equals("HEARTBEAT") ? ",\"extendMs\":" + Long.MAX_VALUE : "") + "}";
            int answered = countSourced();
            pipe(json);
            observe();
            if (countSourced() == answered && !(status.equals("HEARTBEAT") && !unknown)) {
                problems.add("a stale report (" + status + " " + id + "#" + staleAttempt + ") got no answer with its source");
            }
        }

        @SafeVarargs
        private <T> T pick(T... values) {
            return values[random.nextInt(values.length)];
        }

        private void pipe(String json) {
            try {
                ax.report("t", json);
            } catch (RuntimeException | Error e) {
                problems.add("pipeInput threw " + TopologyFuzzRun.describe(e));
            }
        }

        private int sourced;

        private int countSourced() {
            return sourced;
        }

        /** Reads the outputs and checks them against the model. */
        private void observe() {
            for (SchedulerHarness.Dispatched d : ax.dispatches()) {
                if (!"RUN".equals(d.header(io.ax.AxHeaders.KIND))) {
                    continue;
                }
                String id = d.executionId() + "#" + d.task().getAttempt();
                if (!dispatched.add(id)) {
                    problems.add("dispatched " + id + " twice");
                }
                executionId = d.executionId();
                attempt = d.task().getAttempt();
                dispatchedAtMs = d.timestampMs();
                lastSignMs = dispatchedAtMs;
                startedAtMs = null;
                deadlineAtMs = Long.MIN_VALUE;
                inFlight = true;
            }
            for (JsonNode event : ax.events()) {
                if (event.has("source")) {
                    sourced++;
                }
                String to = event.path("to").asText();
                long atMs = Instant.parse(event.path("at").asText()).toEpochMilli();
                if (to.equals("TIMED_OUT")) {
                    timeouts++;
                    long earliest = earliestTimeoutMs();
                    if (atMs < earliest) {
                        problems.add("TIMED_OUT at " + atMs + " (" + event.path("reason").asText() + "), before the earliest limit "
                                + earliest + " of attempt " + attempt + " dispatched at " + dispatchedAtMs + ", started "
                                + startedAtMs + ", last sign " + lastSignMs);
                    }
                    inFlight = false;
                } else if (to.equals("SUCCESS") || to.equals("FAILED") || to.equals("CANCELLED")) {
                    inFlight = false;
                } else if (to.equals("RUNNING") && event.path("from").asText().equals("RUNNING")) {
                    checkExtension(event);
                }
            }
            if (!ax.drainRaw(Quarantine.topic(ax.topics)).isEmpty()) {
                problems.add("quarantined: an exception escaped a processor");
            }
        }

        private void checkExtension(JsonNode event) {
            Matcher matcher = EXTENDED_TO.matcher(event.path("reason").asText());
            if (!matcher.find()) {
                problems.add("RUNNING -> RUNNING without the new deadline: " + event);
                return;
            }
            long toMs = Instant.parse(matcher.group(1)).toEpochMilli();
            if (startToCloseMs == null || startedAtMs == null) {
                problems.add("extended without a start-to-close limit or before STARTED: " + event);
            } else if (toMs > startedAtMs + 10 * startToCloseMs) {
                problems.add("extended to " + toMs + ", past STARTED + 10 x startToCloseTimeoutMs = " + (startedAtMs + 10 * startToCloseMs));
            } else if (toMs < Math.max(deadlineAtMs, startedAtMs + startToCloseMs)) {
                problems.add("an extension pulled the start-to-close deadline in, to " + toMs);
            }
            deadlineAtMs = Math.max(deadlineAtMs, toMs);
        }

        /** The first moment any limit that applies may end the current attempt (extensions only push it later). */
        private long earliestTimeoutMs() {
            long silenceMs = timeoutMs == null ? DEFAULT_TIMEOUT_MS : timeoutMs;
            if (startedAtMs == null) {
                return scheduleToStartMs != null ? dispatchedAtMs + scheduleToStartMs : lastSignMs + silenceMs;
            }
            long quietMs = lastSignMs + (heartbeatMs != null ? heartbeatMs : silenceMs);
            return startToCloseMs == null ? quietMs : Math.min(quietMs, startedAtMs + startToCloseMs);
        }
    }
}
