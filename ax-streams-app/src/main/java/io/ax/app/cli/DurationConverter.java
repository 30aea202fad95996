package io.ax.app.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A duration as people type it: a whole number and a unit, {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h},
 * {@code 7d}, or several of them in a row ({@code 1h30m}); or ISO-8601 ({@code PT5M}). Never negative.
 */
final class DurationConverter implements ITypeConverter<Duration> {
    private static final Pattern PART = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    static Duration parse(String value) {
        String text = value == null ? "" : value.strip();
        if (text.startsWith("P") || text.startsWith("p")) {
            try {
                return requireNotNegative(value, Duration.parse(text));
            } catch (DateTimeParseException e) {
                throw invalid(value);
            }
        }
        Matcher part = PART.matcher(text);
        Duration total = Duration.ZERO;
        int end = 0;
        while (part.find() && part.start() == end) {
            long amount = Long.parseLong(part.group(1));
            total = total.plus(switch (part.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            });
            end = part.end();
        }
        if (end == 0 || end != text.length()) {
            throw invalid(value);
        }
        return total;
    }

    private static Duration requireNotNegative(String value, Duration duration) {
        if (duration.isNegative()) {
            throw new TypeConversionException("'" + value + "' is negative");
        }
        return duration;
    }

    private static TypeConversionException invalid(String value) {
        return new TypeConversionException("'" + value + "' is not a duration (examples: 500ms, 30s, 5m, 2h, 1d, 1h30m, PT5M)");
    }
}
