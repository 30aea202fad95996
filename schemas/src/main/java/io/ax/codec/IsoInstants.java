package io.ax.codec;

import java.time.Instant;

/**
 * {@code Instant.ofEpochMilli(ms).toString()}, written without {@link java.time.format.DateTimeFormatter}: every state
 * event carries one or two instants, and the formatter took 40% of writing an event. Years 0–9999 are written here
 * (civil-from-days arithmetic, as {@link java.time.LocalDate#ofEpochDay} does); others go to {@link Instant#toString}.
 * {@code IsoInstantsTest} compares the two over the whole range.
 */
final class IsoInstants {
    private static final long MIN_MS = -62_167_219_200_000L; // 0000-01-01T00:00:00Z
    private static final long MAX_MS = 253_402_300_799_999L; // 9999-12-31T23:59:59.999Z

    private IsoInstants() {
    }

    static String of(long epochMs) {
        if (epochMs < MIN_MS || epochMs > MAX_MS) {
            return Instant.ofEpochMilli(epochMs).toString();
        }
        long days = Math.floorDiv(epochMs, 86_400_000L);
        int msOfDay = (int) Math.floorMod(epochMs, 86_400_000L);
        // Civil date from days since 1970-01-01 (H. Hinnant's algorithm, proleptic Gregorian, as java.time uses).
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097);
        long dayOfEra = z - era * 146_097;
        long yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
        long mp = (5 * dayOfYear + 2) / 153;
        int day = (int) (dayOfYear - (153 * mp + 2) / 5 + 1);
        int month = (int) (mp < 10 ? mp + 3 : mp - 9);
        int year = (int) (yearOfEra + era * 400 + (month <= 2 ? 1 : 0));

        char[] out = new char[24];
        digits(out, 0, year, 4);
        out[4] = '-';
        digits(out, 5, month, 2);
        out[7] = '-';
        digits(out, 8, day, 2);
        out[10] = 'T';
        digits(out, 11, msOfDay / 3_600_000, 2);
        out[13] = ':';
        digits(out, 14, msOfDay / 60_000 % 60, 2);
        out[16] = ':';
        digits(out, 17, msOfDay / 1_000 % 60, 2);
        int millis = msOfDay % 1_000;
        if (millis == 0) {
            out[19] = 'Z';
            return new String(out, 0, 20);
        }
        out[19] = '.';
        digits(out, 20, millis, 3);
        out[23] = 'Z';
        return new String(out);
    }

    private static void digits(char[] out, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            out[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }
}
