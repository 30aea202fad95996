package io.ax.app.cli;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** An ISO-8601 instant, {@code 2026-12-01T02:00:00Z} or with an offset ({@code 2026-12-01T10:00:00+08:00}). */
final class InstantConverter implements ITypeConverter<Instant> {
    @Override
    public Instant convert(String value) {
        try {
            return OffsetDateTime.parse(value.strip()).toInstant();
        } catch (DateTimeException e) {
            throw new TypeConversionException("'" + value + "' is not an ISO-8601 instant (example: 2026-12-01T02:00:00Z)");
        }
    }
}
