package io.ax.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.time.Instant;
import org.apache.kafka.clients.producer.RecordMetadata;

/** What Kafka acknowledged for a request a command sent: one readable line, or one JSON object with {@code --json}. */
final class Acknowledged {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Acknowledged() {
    }

    static void print(PrintWriter out, boolean json, String request, String taskId, RecordMetadata sent, String stateTopic) {
        if (json) {
            ObjectNode ack = MAPPER.createObjectNode()
                    .put("request", request)
                    .put("taskId", taskId)
                    .put("topic", sent.topic())
                    .put("partition", sent.partition())
                    .put("offset", sent.offset())
                    .put("timestamp", Instant.ofEpochMilli(sent.timestamp()).toString());
            out.println(ack);
        } else {
            out.println(request + " of " + taskId + " acknowledged: " + sent.topic() + "-" + sent.partition() + "@"
                    + sent.offset() + " at " + Instant.ofEpochMilli(sent.timestamp()) + "; the outcome appears on "
                    + stateTopic + " (ax tail --task " + taskId + ")");
        }
        out.flush();
    }
}
