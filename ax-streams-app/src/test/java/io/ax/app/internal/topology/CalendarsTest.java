package io.ax.app.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.app.internal.topology.SchedulerHarness.Dispatched;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 14, exclusion calendars, under TopologyTestDriver with the wall clock driven: calendars set, updated and
 * deleted by request; excluded dates, ranges, weekdays and daily windows (across a daylight-saving change); runs of
 * excluded occurrences coalesced; updates applied to the occurrence already timed, both ways; bad calendars and tasks
 * whose calendar leaves them nothing REJECTED with the reason.
 */
class CalendarsTest {
    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final Duration HOUR = Duration.ofHours(1);

    private static List<JsonNode> withTo(List<JsonNode> events, String to) {
        return events.stream().filter(e -> e.get("to").asText().equals(to)).toList();
    }

    private static JsonNode accepted(SchedulerHarness ax, String name, String calendarJson) {
        ax.request(name, "{\"calendar\":" + calendarJson + "}");
        List<JsonNode> events = ax.events();
        assertThat(events).as("one answer to the calendar request").hasSize(1);
        JsonNode event = events.get(0);
        assertThat(event.get("to").asText()).as(event.toString()).isEqualTo("ACCEPTED");
        assertThat(event.get("calendar").asText()).isEqualTo(name);
        return event;
    }

    private static JsonNode rejected(SchedulerHarness ax, String key, String json) {
        ax.request(key, json);
        List<JsonNode> events = ax.events();
        assertThat(events).hasSize(1);
        assertThat(events.get(0).get("to").asText()).as(events.get(0).toString()).isEqualTo("REJECTED");
        return events.get(0);
    }

    /** Moves the clock to {@code instant} in one step (nothing must be due on the way). */
    private static void jumpTo(SchedulerHarness ax, Instant instant) {
        ax.advance(Duration.between(ax.now(), instant));
    }

    /** Moves the clock to {@code until} in steps of {@code step}, collecting the due times dispatched on the way. */
    private static List<Instant> run(SchedulerHarness ax, Instant until, Duration step) {
        List<Instant> due = new ArrayList<>();
        while (ax.now().isBefore(until)) {
            // Three punctuations: the timing wheel loads a far timer in one and fires it in a later one.
            ax.advance(step.minusMillis(20));
            ax.advanceMs(10);
            ax.advanceMs(10);
            for (Dispatched d : ax.dispatches()) {
                // Each run succeeds at once, so no overlap, timeout or retry mixes in.
                due.add(Instant.ofEpochMilli(d.task().getDueAtMs()));
                ax.report(d.key(), "{\"executionId\":\"" + d.executionId() + "\",\"attempt\":" + d.task().getAttempt()
                        + ",\"status\":\"SUCCEEDED\"}");
            }
        }
        return due;
    }

    private static Instant at(String iso) {
        return Instant.parse(iso);
    }

    @Test
    void shouldSkipAnOccurrenceOnAnExcludedDateAndRunTheOthers() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            JsonNode set = accepted(ax, "holidays", "{\"excludeDates\":[\"2026-12-02\"],\"description\":\"test\"}");
            assertThat(set.get("reason").asText()).contains("calendar set").contains("1 date(s)").contains("UTC");
            assertThat(set.has("taskId")).as("about no task").isFalse();
            ax.request("report", "{\"jobType\":\"report\",\"cron\":\"0 12 * * *\",\"calendar\":\"holidays\"}");
            assertThat(withTo(ax.events(), "PENDING")).hasSize(1);

            List<Instant> ran = run(ax, at("2026-12-03T12:30:00Z"), HOUR);

            assertThat(ran).containsExactly(at("2026-12-01T12:00:00Z"), at("2026-12-03T12:00:00Z"));
            List<JsonNode> skipped = withTo(ax.events(), "SKIPPED");
            assertThat(skipped).singleElement().satisfies(e -> {
                assertThat(e.get("dueAt").asText()).isEqualTo("2026-12-02T12:00:00Z");
                assertThat(e.get("calendar").asText()).isEqualTo("holidays");
                assertThat(e.get("reason").asText()).contains("excluded by calendar \"holidays\": date 2026-12-02 in UTC");
                assertThat(e.has("skipped")).isFalse();
            });
            assertThat(ax.storedTask("report").getOccurrences()).as("an excluded occurrence counts").isEqualTo(3);
        }
    }

    @Test
    void shouldSkipADateRangeAndReportTheRunAfterItsFirstAsOneEvent() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            accepted(ax, "xmas", "{\"zone\":\"Europe/Berlin\",\"excludeRanges\":[{\"from\":\"2026-12-02\",\"to\":\"2026-12-04\"}]}");
            ax.request("daily", "{\"jobType\":\"report\",\"cron\":\"0 12 * * *\",\"zone\":\"Europe/Berlin\",\"calendar\":\"xmas\"}");
            ax.discardEvents();

            List<Instant> ran = run(ax, at("2026-12-02T12:00:00Z"), HOUR);
            assertThat(ran).containsExactly(at("2026-12-01T11:00:00Z"));
            assertThat(withTo(ax.events(), "SKIPPED")).as("the first of the run, at once").singleElement()
                    .satisfies(e -> assertThat(e.get("reason").asText()).contains("range 2026-12-02 to 2026-12-04 in Europe/Berlin"));

            ran = run(ax, at("2026-12-04T12:00:00Z"), HOUR);
            assertThat(ran).isEmpty();
            assertThat(withTo(ax.events(), "SKIPPED")).as("the rest of the run is counted, not reported one by one").isEmpty();
            assertThat(ax.storedTask("daily").getCalendarSkips().getCount()).isEqualTo(2);

            ran = run(ax, at("2026-12-05T12:00:00Z"), HOUR);
            assertThat(ran).containsExactly(at("2026-12-05T11:00:00Z"));
            assertThat(withTo(ax.events(), "SKIPPED")).singleElement().satisfies(e -> {
                assertThat(e.get("skipped").asLong()).isEqualTo(2);
                assertThat(e.get("dueAt").asText()).isEqualTo("2026-12-03T11:00:00Z");
                assertThat(e.get("lastDueAt").asText()).isEqualTo("2026-12-04T11:00:00Z");
                assertThat(e.get("calendar").asText()).isEqualTo("xmas");
                assertThat(e.get("reason").asText()).contains("2 further occurrence(s) in a row excluded by calendar \"xmas\"");
            });
            assertThat(ax.storedTask("daily").getCalendarSkips()).isNull();
        }
    }

    @Test
    void shouldCoalesceAnEveryMinuteTaskOverAWeekendIntoTwoEvents() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            accepted(ax, "weekdays", "{\"excludeWeekdays\":[\"SATURDAY\",\"SUNDAY\"]}");
            jumpTo(ax, at("2026-12-04T23:57:30Z")); // a Friday
            ax.request("m", "{\"jobType\":\"sync\",\"everyMs\":60000,\"startAt\":\"2026-12-04T23:58:00Z\",\"calendar\":\"weekdays\"}");
            ax.discardEvents();

            List<Instant> ran = run(ax, at("2026-12-07T00:02:30Z"), MINUTE);

            assertThat(ran).containsExactly(at("2026-12-04T23:58:00Z"), at("2026-12-04T23:59:00Z"), at("2026-12-07T00:00:00Z"),
                    at("2026-12-07T00:01:00Z"), at("2026-12-07T00:02:00Z"));
            List<JsonNode> skipped = withTo(ax.events(), "SKIPPED");
            assertThat(skipped).as("2,880 excluded occurrences, two events").hasSize(2);
            assertThat(skipped.get(0).get("dueAt").asText()).isEqualTo("2026-12-05T00:00:00Z");
            assertThat(skipped.get(0).get("reason").asText()).contains("weekday SATURDAY in UTC");
            assertThat(skipped.get(1).get("skipped").asLong()).isEqualTo(2879);
            assertThat(skipped.get(1).get("dueAt").asText()).isEqualTo("2026-12-05T00:01:00Z");
            assertThat(skipped.get(1).get("lastDueAt").asText()).isEqualTo("2026-12-06T23:59:00Z");
            assertThat(ax.storedTask("m").getOccurrences()).isEqualTo(2 + 2880 + 3);
        }
    }

    @Test
    void shouldMatchADailyWindowInTheCalendarsZoneAcrossADaylightSavingChange() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            accepted(ax, "mornings", "{\"zone\":\"Europe/Berlin\",\"excludeDaily\":[{\"from\":\"08:00\",\"to\":\"09:00\"}]}");
            jumpTo(ax, at("2027-03-27T04:30:00Z"));
            ax.request("h", "{\"jobType\":\"sync\",\"everyMs\":3600000,\"startAt\":\"2027-03-27T05:00:00Z\",\"calendar\":\"mornings\"}");

            List<Instant> ran = run(ax, at("2027-03-28T09:30:00Z"), HOUR);

            // Saturday, CET (UTC+1): 08:00 local is 07:00Z. Sunday 01:00Z clocks go forward, CEST (UTC+2): 08:00 is 06:00Z.
            assertThat(ran).doesNotContain(at("2027-03-27T07:00:00Z"), at("2027-03-28T06:00:00Z"))
                    .contains(at("2027-03-27T06:00:00Z"), at("2027-03-27T08:00:00Z"), at("2027-03-28T05:00:00Z"),
                            at("2027-03-28T07:00:00Z"))
                    .hasSize(29 - 2);
            List<JsonNode> skipped = withTo(ax.events(), "SKIPPED");
            assertThat(skipped).extracting(e -> e.get("dueAt").asText())
                    .containsExactly("2027-03-27T07:00:00Z", "2027-03-28T06:00:00Z");
            assertThat(skipped).allSatisfy(e -> assertThat(e.get("reason").asText())
                    .contains("daily window 08:00-09:00 in Europe/Berlin"));
        }
    }

    @Test
    void shouldApplyAnUpdateThatNewlyExcludesTheOccurrenceAlreadyTimed() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            accepted(ax, "c", "{\"excludeDates\":[\"2027-01-01\"]}");
            ax.request("t", "{\"jobType\":\"report\",\"cron\":\"0 12 * * *\",\"calendar\":\"c\"}");
            assertThat(ax.storedTask("t").getNextDueAtMs()).isEqualTo(at("2026-12-01T12:00:00Z").toEpochMilli());
            ax.discardEvents();

            accepted(ax, "c", "{\"excludeDates\":[\"2026-12-01\"]}");
            List<Instant> ran = run(ax, at("2026-12-02T12:30:00Z"), HOUR);

            assertThat(ran).containsExactly(at("2026-12-02T12:00:00Z"));
            assertThat(withTo(ax.events(), "SKIPPED")).singleElement()
                    .satisfies(e -> assertThat(e.get("dueAt").asText()).isEqualTo("2026-12-01T12:00:00Z"));
        }
    }

    @Test
    void shouldRunTheNextOccurrenceOnceAnUpdateRemovesTheExclusionTheTaskWasIn() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            accepted(ax, "weekdays", "{\"excludeWeekdays\":[\"SATURDAY\",\"SUNDAY\"]}");
            jumpTo(ax, at("2026-12-05T09:59:30Z")); // a Saturday
            ax.request("m", "{\"jobType\":\"sync\",\"everyMs\":60000,\"startAt\":\"2026-12-05T10:00:00Z\",\"calendar\":\"weekdays\"}");
            assertThat(run(ax, at("2026-12-05T10:05:10Z"), MINUTE)).isEmpty();
            ax.discardEvents();

            accepted(ax, "weekdays", "{\"excludeWeekdays\":[\"SUNDAY\"]}");
            List<Instant> ran = run(ax, at("2026-12-05T10:07:10Z"), MINUTE);

            assertThat(ran).containsExactly(at("2026-12-05T10:06:00Z"), at("2026-12-05T10:07:00Z"));
            assertThat(withTo(ax.events(), "SKIPPED")).as("the run counted so far, reported as it ends").singleElement()
                    .satisfies(e -> {
                        assertThat(e.get("skipped").asLong()).isEqualTo(5);
                        assertThat(e.get("dueAt").asText()).isEqualTo("2026-12-05T10:01:00Z");
                        assertThat(e.get("lastDueAt").asText()).isEqualTo("2026-12-05T10:05:00Z");
                    });
        }
    }

    @Test
    void shouldRunUnexcludedOnceTheCalendarIsDeletedAndSaySo() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            accepted(ax, "c", "{\"excludeDaily\":[{\"from\":\"11:00\",\"to\":\"13:00\"}]}");
            ax.request("t", "{\"jobType\":\"sync\",\"everyMs\":3600000,\"startAt\":\"2026-12-01T10:00:00Z\",\"calendar\":\"c\"}");
            assertThat(run(ax, at("2026-12-01T11:00:00Z"), HOUR)).containsExactly(at("2026-12-01T10:00:00Z")); // 11:00 excluded
            ax.discardEvents();

            ax.request("c", "{\"deleteCalendar\":true}");
            JsonNode deleted = ax.events().get(0);
            assertThat(deleted.get("to").asText()).isEqualTo("ACCEPTED");
            assertThat(deleted.get("reason").asText()).contains("calendar deleted");
            List<Instant> ran = run(ax, at("2026-12-01T12:00:00Z"), HOUR);

            assertThat(ran).containsExactly(at("2026-12-01T12:00:00Z"));
            List<JsonNode> events = ax.events();
            assertThat(withTo(events, "TRIGGERED")).singleElement().satisfies(e -> assertThat(e.get("reason").asText())
                    .contains("calendar \"c\" does not exist (deleted?): no exclusion applied"));
            ax.request("c", "{\"deleteCalendar\":true}");
            assertThat(ax.events()).singleElement().satisfies(e -> {
                assertThat(e.get("to").asText()).isEqualTo("IGNORED");
                assertThat(e.get("reason").asText()).contains("does not exist");
            });
        }
    }

    @Test
    void shouldReportTheCountedRunWhenTheTaskIsCancelled() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            accepted(ax, "c", "{\"excludeDaily\":[{\"from\":\"00:00\",\"to\":\"12:00\"}]}");
            ax.request("t", "{\"jobType\":\"sync\",\"everyMs\":60000,\"calendar\":\"c\"}");
            run(ax, at("2026-12-01T00:03:00Z"), MINUTE); // 00:01 reported at once, 00:02 and 00:03 counted
            ax.discardEvents();
            ax.request("t", "{\"cancel\":true}");
            assertThat(withTo(ax.events(), "SKIPPED")).singleElement().satisfies(e -> {
                assertThat(e.get("skipped").asLong()).isEqualTo(2);
                assertThat(e.get("reason").asText()).contains("the task times no further occurrence");
            });
        }
    }

    @Test
    void shouldReportTheCountedRunWhenTheTaskIsPausedOrReplaced() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            accepted(ax, "c", "{\"excludeDaily\":[{\"from\":\"00:00\",\"to\":\"12:00\"}]}");
            ax.request("p", "{\"jobType\":\"sync\",\"everyMs\":60000,\"calendar\":\"c\"}");
            ax.request("r", "{\"jobType\":\"sync\",\"everyMs\":60000,\"calendar\":\"c\"}");
            run(ax, at("2026-12-01T00:04:00Z"), MINUTE); // 00:01 reported at once, 00:02 to 00:04 counted
            ax.discardEvents();

            ax.request("p", "{\"pause\":true}");
            assertThat(withTo(ax.events(), "SKIPPED")).singleElement().satisfies(e -> {
                assertThat(e.get("taskId").asText()).isEqualTo("p");
                assertThat(e.get("skipped").asLong()).isEqualTo(3);
                assertThat(e.get("reason").asText()).contains("the task was paused");
            });
            ax.request("r", "{\"jobType\":\"sync\",\"everyMs\":60000,\"ifExists\":\"REPLACE\"}");
            assertThat(withTo(ax.events(), "SKIPPED")).singleElement().satisfies(e -> {
                assertThat(e.get("taskId").asText()).isEqualTo("r");
                assertThat(e.get("skipped").asLong()).isEqualTo(3);
                assertThat(e.get("reason").asText()).contains("the task was replaced");
            });
            assertThat(ax.storedTask("r").getCalendarSkips()).isNull();
        }
    }

    @Test
    void shouldRejectATaskWhoseCalendarExcludesEveryOccurrenceOrDoesNotExist() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            accepted(ax, "noon", "{\"excludeDaily\":[{\"from\":\"11:00\",\"to\":\"13:00\"}]}");
            JsonNode never = rejected(ax, "t", "{\"jobType\":\"report\",\"cron\":\"0 12 * * *\",\"calendar\":\"noon\"}");
            assertThat(never.get("reason").asText()).contains("calendar \"noon\" excludes every occurrence of the task")
                    .contains("10000 occurrences or 366 days");
            JsonNode unknown = rejected(ax, "t", "{\"jobType\":\"report\",\"everyMs\":60000,\"calendar\":\"nope\"}");
            assertThat(unknown.get("reason").asText()).contains("unknown calendar \"nope\": create it first");
            JsonNode oneShot = rejected(ax, "t", "{\"jobType\":\"report\",\"delayMs\":60000,\"calendar\":\"noon\"}");
            assertThat(oneShot.get("reason").asText()).contains("calendar goes with a periodic trigger");
            // An every-second task is not rejected by a long exclusion: the look-ahead jumps over it.
            accepted(ax, "month", "{\"excludeRanges\":[{\"from\":\"2026-12-01\",\"to\":\"2026-12-31\"}]}");
            ax.request("s", "{\"jobType\":\"sync\",\"everyMs\":1000,\"calendar\":\"month\"}");
            assertThat(withTo(ax.events(), "PENDING")).hasSize(1);
        }
    }

    @Test
    void shouldRejectBadCalendarsWithTheirReason() {
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            assertThat(rejected(ax, "c", "{\"calendar\":{\"excludeWeekdays\":[\"MONDAY\",\"TUESDAY\",\"WEDNESDAY\",\"THURSDAY\","
                    + "\"FRIDAY\",\"SATURDAY\",\"SUNDAY\"]}}").get("reason").asText()).contains("excludes all seven weekdays");
            JsonNode everything = rejected(ax, "c", "{\"calendar\":{\"excludeRanges\":[{\"from\":\"2026-01-01\",\"to\":\"2028-01-01\"}]}}");
            assertThat(everything.get("reason").asText()).contains("excludes every instant").contains("366 days");
            assertThat(everything.get("calendar").asText()).isEqualTo("c");
            assertThat(rejected(ax, "c", "{\"calendar\":{\"zone\":\"Mars/Olympus\"}}").get("reason").asText())
                    .contains("zone is not a known time zone id");
            assertThat(rejected(ax, "c", "{\"calendar\":{\"excludeRanges\":[{\"from\":\"2026-12-31\",\"to\":\"2026-12-01\"}]}}")
                    .get("reason").asText()).contains("to 2026-12-01 is before from 2026-12-31");
            assertThat(rejected(ax, "c", "{\"calendar\":{\"excludeWeekdays\":[\"FUNDAY\"]}}").get("reason").asText())
                    .contains("excludeWeekdays must be MONDAY ... SUNDAY");
            assertThat(rejected(ax, "c", "{\"calendar\":{\"excludeDaily\":[{\"from\":\"10:00\",\"to\":\"10:00\"}]}}")
                    .get("reason").asText()).contains("is empty or the whole day");
            assertThat(rejected(ax, "c", "{\"calendar\":{\"excludeDaily\":[{\"from\":\"25:00\",\"to\":\"10:00\"}]}}")
                    .get("reason").asText()).contains("HH:mm");
            assertThat(rejected(ax, "c", "{\"calendar\":{\"excludeDates\":[\"12/25/2026\"]}}").get("reason").asText())
                    .contains("ISO dates");
            assertThat(rejected(ax, "c", "{\"calendar\":{\"excludeDates\":[\"2026-12-25\"],\"holidays\":true}}").get("reason").asText())
                    .contains("unknown field holidays");
            StringBuilder many = new StringBuilder("[");
            for (int i = 0; i < 1001; i++) {
                many.append(i == 0 ? "" : ",").append("\"2027-01-01\"");
            }
            assertThat(rejected(ax, "c", "{\"calendar\":{\"excludeDates\":" + many + "]}}").get("reason").asText())
                    .contains("excludeDates has 1001 entries, more than 1000");
            // Nothing of these reached the calendar store: a task naming c is refused.
            assertThat(rejected(ax, "t", "{\"jobType\":\"sync\",\"everyMs\":60000,\"calendar\":\"c\"}").get("reason").asText())
                    .contains("unknown calendar \"c\"");
            // And the scheduler goes on.
            accepted(ax, "c", "{\"excludeDates\":[\"2026-12-25\"]}");
        }
    }

    /** A CalendarRequest in Avro whose zone is not UTF-8: "Europe/Berlin" with its first byte made 0xFF. */
    private static byte[] calendarWithInvalidUtf8Zone() {
        byte[] bytes = io.ax.codec.WireCodec.encode(io.ax.schema.CalendarRequest.newBuilder().setZone("Europe/Berlin").build());
        byte[] zone = "Europe/Berlin".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int i = 0; i + zone.length <= bytes.length; i++) {
            if (java.util.Arrays.equals(bytes, i, i + zone.length, zone, 0, zone.length)) {
                bytes[i] = (byte) 0xFF;
                return bytes;
            }
        }
        throw new IllegalStateException("zone not found in the encoding");
    }

    @Test
    void shouldStoreNothingFromTheCalendarsTopicThatIsNotACalendarAndKeepSkippingTheDaysItExcludes() {
        LogCapture logs = LogCapture.root();
        try (SchedulerHarness ax = new SchedulerHarness(SchedulerHarness.tempDir())) {
            accepted(ax, "weekends", "{\"excludeWeekdays\":[\"SATURDAY\",\"SUNDAY\"]}");
            ax.request("daily", "{\"jobType\":\"report\",\"cron\":\"0 12 * * *\",\"calendar\":\"weekends\"}");
            assertThat(withTo(ax.events(), "PENDING")).hasSize(1);
            String topic = ax.topics.calendars();
            byte[] retry = io.ax.codec.WireCodec.encode(io.ax.schema.RetryRecord.newBuilder().setExecutionId("e").setAttempt(2)
                    .setNextAttemptAtMs(0).setBackoffMs(1).setJobType("x").build());
            List<byte[]> bad = List.of(
                    new byte[] {(byte) 0xC3, 0x01, 1, 2, 3},                               // garbage behind the Avro magic
                    "not json at all".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    "{\"zone\":\"UTC\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8),  // JSON, not a calendar request
                    "{\"calendar\":{\"zone\":\"UTC\",\"zone\":\"Asia/Tokyo\"}}".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    retry,                                                                 // read as an empty calendar before
                    calendarWithInvalidUtf8Zone(),
                    io.ax.codec.WireCodec.encode(io.ax.schema.CalendarRequest.newBuilder().setDelete(true).build()));
            for (byte[] value : bad) {
                ax.pipeRaw(topic, "weekends".getBytes(java.nio.charset.StandardCharsets.UTF_8), value, ax.nowMs());
            }
            ax.pipeRaw(topic, null, retry, ax.nowMs());
            ax.pipeRaw(topic, "k".repeat(1_000_000).getBytes(java.nio.charset.StandardCharsets.UTF_8), null, ax.nowMs());
            ax.pipeRaw(topic, "junk".getBytes(java.nio.charset.StandardCharsets.UTF_8), retry, ax.nowMs());
            assertThat(ax.metrics.calendarErrors().count()).as("each bad record counted").isEqualTo(bad.size() + 3);
            assertThat(ax.metrics.calendarErrors().last()).allSatisfy(refused -> {
                assertThat(refused.key() == null || refused.key().length() < 100).as("key quoted short").isTrue();
                assertThat(refused.offset()).as("where it was").isGreaterThanOrEqualTo(0);
            });
            assertThat(ax.drainRaw(io.ax.app.fuzz.Quarantine.topic(ax.topics))).as("nothing escaped the global processor").isEmpty();

            // The calendar stands as it was: the task skips the weekend (2026-12-05 and -06) and runs the other days.
            List<Instant> ran = run(ax, at("2026-12-08T13:00:00Z"), HOUR);
            assertThat(ran).extracting(Instant::toString).containsExactly("2026-12-01T12:00:00Z", "2026-12-02T12:00:00Z",
                    "2026-12-03T12:00:00Z", "2026-12-04T12:00:00Z", "2026-12-07T12:00:00Z", "2026-12-08T12:00:00Z");
            // A name only garbage was ever written under is no calendar.
            ax.discardEvents();
            assertThat(rejected(ax, "t2", "{\"jobType\":\"r\",\"cron\":\"0 12 * * *\",\"calendar\":\"junk\"}")
                    .get("reason").asText()).contains("unknown calendar");
        } finally {
            logs.stop();
        }
        assertThat(logs.lines().stream().filter(line -> line.contains("Refused calendars record"))).hasSize(10)
                .allSatisfy(line -> assertThat(line).startsWith("WARN").contains(" at ax.calendars-0@"));
        assertThat(logs.events()).noneMatch(e -> e.getLevel() == ch.qos.logback.classic.Level.ERROR);
        assertThat(logs.longest()).as("the 1 MB key quoted short").isLessThan(2_000);
    }
}
