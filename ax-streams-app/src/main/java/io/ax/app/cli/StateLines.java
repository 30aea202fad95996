package io.ax.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * One readable line per {@code ax.state} event, in the demo's style:
 * <pre>
 * 2026-12-01T02:00:00.012Z  invoice-42        PENDING → TRIGGERED     attempt 1  exec 878ae41b-…  (email)
 * 2026-12-01T02:00:00.000Z  oops              → REJECTED              delayMs must be … [ax.requests-1@3]
 * </pre>
 */
final class StateLines {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private StateLines() {
    }

    /** The event parsed, or null when the value is not a JSON object (then printed as it is). */
    static JsonNode parse(String value) {
        try {
            JsonNode node = value == null ? null : MAPPER.readTree(value);
            return node != null && node.isObject() ? node : null;
        } catch (IOException e) {
            return null;
        }
    }

    static String format(JsonNode e) {
        String to = e.path("to").asText("?");
        String move = (e.hasNonNull("from") ? e.get("from").asText() + " → " : "→ ") + to;
        StringBuilder line = new StringBuilder(String.format("%-24s  %-16s  %-24s", e.path("at").asText("-"),
                e.path("taskId").asText(e.hasNonNull("worker") ? "worker " + e.get("worker").asText() : "-"), move));
        if (e.hasNonNull("attempt") && !"PENDING".equals(to)) {
            line.append("  attempt ").append(e.get("attempt").asInt());
        }
        if (e.hasNonNull("dueAt")) {
            line.append("  due ").append(e.get("dueAt").asText());
        }
        if (e.hasNonNull("executionId")) {
            line.append("  exec ").append(e.get("executionId").asText());
        }
        if (e.hasNonNull("jobType")) {
            line.append("  (").append(e.get("jobType").asText()).append(')');
        }
        if (e.hasNonNull("reason")) {
            line.append("  ").append(e.get("reason").asText());
        }
        if (e.hasNonNull("source")) {
            JsonNode s = e.get("source");
            line.append(" [").append(s.path("topic").asText()).append('-').append(s.path("partition").asInt())
                    .append('@').append(s.path("offset").asLong()).append(']');
        }
        return line.toString();
    }
}
