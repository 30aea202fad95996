package io.ax.calendar;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.codec.JsonForms;
import io.ax.codec.WireCodec;
import io.ax.schema.CalendarRequest;
import io.ax.schema.DailyWindow;
import io.ax.schema.DateRange;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExclusionCalendarTest {
    private static long ms(String iso) {
        return Instant.parse(iso).toEpochMilli();
    }

    private static ExclusionCalendar calendar(String json) {
        CalendarRequest request = (CalendarRequest) JsonForms.parseRequest(("{\"calendar\":" + json + "}").getBytes(StandardCharsets.UTF_8));
        return ExclusionCalendar.of("c", request);
    }

    @Test
    void shouldExcludeAWindowThatWrapsMidnightOnBothSidesAndNotAtItsEnd() {
        ExclusionCalendar night = calendar("{\"excludeDaily\":[{\"from\":\"22:00\",\"to\":\"06:00\"}]}");
        assertThat(night.exclusion(ms("2026-12-01T21:59:59.999Z"))).isNull();
        assertThat(night.exclusion(ms("2026-12-01T22:00:00Z"))).isEqualTo("daily window 22:00-06:00 in UTC");
        assertThat(night.exclusion(ms("2026-12-02T05:59:59Z"))).isNotNull();
        assertThat(night.exclusion(ms("2026-12-02T06:00:00Z"))).isNull();
        assertThat(night.nextAllowed(ms("2026-12-01T23:00:00Z"), Long.MAX_VALUE)).hasValue(ms("2026-12-02T06:00:00Z"));
        assertThat(night.nextAllowed(ms("2026-12-02T01:00:00Z"), Long.MAX_VALUE)).hasValue(ms("2026-12-02T06:00:00Z"));
    }

    @Test
    void shouldJumpOverAdjacentExclusionsToTheFirstAllowedInstant() {
        // Friday night's window runs into a weekend, then Monday's early window.
        ExclusionCalendar c = calendar("{\"excludeWeekdays\":[\"SATURDAY\",\"SUNDAY\"],\"excludeDaily\":[{\"from\":\"22:00\",\"to\":\"06:00\"}],"
                + "\"excludeDates\":[\"2026-12-07\"]}");
        assertThat(c.nextAllowed(ms("2026-12-04T23:00:00Z"), Long.MAX_VALUE)).hasValue(ms("2026-12-08T06:00:00Z"));
        assertThat(c.nextAllowed(ms("2026-12-04T23:00:00Z"), ms("2026-12-06T00:00:00Z"))).isEmpty();
    }

    @Test
    void shouldEndAWindowWhoseEndFallsInADaylightSavingGapAtTheFirstInstantAfterIt() {
        // Europe/Berlin 2027-03-28: 02:00 local does not exist, clocks go from 02:00 CET to 03:00 CEST (01:00Z).
        ExclusionCalendar c = calendar("{\"zone\":\"Europe/Berlin\",\"excludeDaily\":[{\"from\":\"01:00\",\"to\":\"02:30\"}]}");
        assertThat(c.exclusion(ms("2027-03-28T00:30:00Z"))).isNotNull(); // 01:30 CET
        assertThat(c.exclusion(ms("2027-03-28T01:00:00Z"))).isNull();    // 03:00 CEST
        assertThat(c.nextAllowed(ms("2027-03-28T00:30:00Z"), Long.MAX_VALUE)).hasValue(ms("2027-03-28T01:00:00Z"));
    }

    @Test
    void shouldRoundTripTheAvroForm() {
        CalendarRequest request = CalendarRequest.newBuilder().setZone("Asia/Shanghai").setExcludeDates(List.of("2027-02-17"))
                .setExcludeRanges(List.of(new DateRange("2027-10-01", "2027-10-07")))
                .setExcludeDaily(List.of(new DailyWindow("12:00", "13:30:00"))).build();
        CalendarRequest back = (CalendarRequest) WireCodec.decodeRequest(WireCodec.encode(request));
        assertThat(back).isEqualTo(request);
        ExclusionCalendar c = ExclusionCalendar.of("cn", back);
        assertThat(c.exclusion(ms("2027-10-03T00:00:00Z"))).isEqualTo("range 2027-10-01 to 2027-10-07 in Asia/Shanghai");
        assertThat(c.exclusion(ms("2027-02-17T04:00:00Z"))).isEqualTo("date 2027-02-17 in Asia/Shanghai");
        assertThat(c.exclusion(ms("2027-02-18T05:00:00Z"))).isEqualTo("daily window 12:00-13:30 in Asia/Shanghai");
    }

    @Test
    void shouldParseTheDeleteForm() {
        CalendarRequest delete = (CalendarRequest) JsonForms.parseRequest("{\"deleteCalendar\":true}".getBytes(StandardCharsets.UTF_8));
        assertThat(delete.getDelete()).isTrue();
    }
}
