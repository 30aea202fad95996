package io.ax.client.internal;

import io.ax.InvalidRequestException;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Converts the client's {@link Duration}/{@link Instant} arguments to the wire's milliseconds, once, where
 * they enter. Range rules (negative delay, too short an interval...) are the validator's; this only refuses
 * values that do not fit in a {@code long} of milliseconds.
 */
public final class Millis {
    private Millis() {
    }

    /** @throws InvalidRequestException naming {@code field} when the duration overflows a long of millis */
    public static long of(Duration duration, String field) {
        Objects.requireNonNull(duration, field);
        try {
            return duration.toMillis();
        } catch (ArithmeticException e) {
            throw new InvalidRequestException(field, field + " is out of range: " + duration, e);
        }
    }

    /** @throws InvalidRequestException naming {@code field} when the instant overflows a long of epoch millis */
    public static long of(Instant instant, String field) {
        Objects.requireNonNull(instant, field);
        try {
            return instant.toEpochMilli();
        } catch (ArithmeticException e) {
            throw new InvalidRequestException(field, field + " is out of range: " + instant, e);
        }
    }
}
