package io.ax.app.fuzz;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** One record the scheduler wrote, as either fuzz level read it; {@code timestampMs} is the record timestamp. */
public record Output(String topic, byte[] key, byte[] value, Headers headers, long timestampMs) {
    /** Key plus value bytes: what the bound on output size counts. */
    public long sizeBytes() {
        return (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
    }

    public String keyText() {
        return key == null ? null : new String(key, StandardCharsets.UTF_8);
    }

    public String header(String name) {
        Header header = headers == null ? null : headers.lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
