package io.ax.worker.internal;

import io.ax.AxHeaders;
import io.ax.schema.DispatchKind;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** The routing headers of a dispatch record (see {@link AxHeaders}), read leniently: absent or malformed is null/empty. */
public record DispatchHeaders(String kind, String executionId, OptionalInt attempt, String jobType) {

    public static DispatchHeaders of(Headers headers) {
        String attempt = text(headers, AxHeaders.ATTEMPT);
        return new DispatchHeaders(text(headers, AxHeaders.KIND), text(headers, AxHeaders.EXECUTION_ID),
                parseAttempt(attempt), text(headers, AxHeaders.JOB_TYPE));
    }

    public boolean isCancel() {
        return DispatchKind.CANCEL.name().equals(kind);
    }

    /** Whether a FAILED report can be addressed from the headers alone. */
    public boolean canReport() {
        return executionId != null && attempt.isPresent();
    }

    private static String text(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static OptionalInt parseAttempt(String attempt) {
        if (attempt == null) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(attempt.trim()));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }
}
