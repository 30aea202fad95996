package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.app.internal.metrics.RefusedRecords;
import io.ax.app.internal.flow.LimitsView;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.javalin.config.RoutesConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;

/**
 * {@code GET /limits}: the flow-control limits this instance applies (topology-docs/FLOW-CONTROL.md) and the limits
 * records it refused (how many, and the last few with their offsets and reasons).
 */
final class LimitsEndpoints implements EndpointGroup {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final KafkaStreams streams;
    private final SchedulerMetrics metrics;

    LimitsEndpoints(KafkaStreams streams, SchedulerMetrics metrics) {
        this.streams = streams;
        this.metrics = metrics;
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/limits", ctx -> Responses.json(ctx, 200, body(LimitsView.read(streams), metrics.limitErrors())));
    }

    static ObjectNode body(Map<String, String> limits, RefusedRecords errors) {
        ObjectNode body = MAPPER.createObjectNode();
        ObjectNode inForce = body.putObject("limits");
        limits.forEach((key, json) -> {
            try {
                inForce.set(key, MAPPER.readTree(json));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        refused(body, errors);
        return body;
    }

    /** {@code refusedCount} and {@code refused} (the last few, with where they were and why) of a compacted input. */
    static void refused(ObjectNode body, RefusedRecords errors) {
        body.put("refusedCount", errors.count());
        ArrayNode refused = body.putArray("refused");
        errors.last().forEach(r -> refused.addObject().put("key", r.key()).put("partition", r.partition()).put("offset", r.offset())
                .put("reason", r.reason()));
    }
}
