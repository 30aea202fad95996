package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.AxTopics;
import io.ax.client.AxClient;
import io.ax.client.internal.RequestSender;
import io.ax.InvalidRequestException;
import io.ax.codec.JsonForms;
import io.ax.codec.StrictJson;
import io.ax.validation.Quote;
import io.ax.schema.ScheduleRequest;
import io.ax.validation.ScheduleLimits;
import io.ax.validation.ScheduleValidator;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * {@code POST /tasks} (the JSON schedule form plus {@code taskId}), {@code POST /tasks/{taskId}/cancel},
 * {@code /replay}, {@code /trigger} (run now), {@code /pause} and {@code /resume} (a periodic task; optional body {@code {"reason":"…"}}): the very records the producer client
 * writes (Avro single-object on the requests topic, key = taskId, through the client's own sender), validated as it
 * validates them. The answer is 202 with the topic, partition and offset Kafka acknowledged: the request is accepted
 * for the scheduler, whose decision (PENDING, IGNORED, REJECTED) appears on the state topic and in {@code GET /tasks/{id}}.
 */
final class RequestEndpoints implements EndpointGroup {
    /** Writes the body back for {@link JsonForms}: numbers as read (exact), so the payload keeps them. */
    private static final ObjectMapper EXACT = new ObjectMapper().setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
    private static final long ACK_TIMEOUT_MS = 30_000;

    private final RequestSender sender;
    private final AxClient client;
    private final ScheduleValidator validator;
    private final HttpGuard guard;

    RequestEndpoints(Producer<String, byte[]> producer, AxTopics topics, ScheduleLimits limits, HttpGuard guard) {
        this.guard = guard;
        this.sender = new RequestSender(producer, topics.requests(), Clock.systemUTC());
        this.client = AxClient.create(producer, topics, Clock.systemUTC(), limits);
        this.validator = new ScheduleValidator(limits);
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.post("/tasks", this::schedule);
        taskRequest(routes, "cancel", client::cancel);
        taskRequest(routes, "replay", client::replay);
        taskRequest(routes, "trigger", client::trigger);
        taskRequest(routes, "pause", client::pause);
        taskRequest(routes, "resume", client::resume);
    }

    /** {@code POST /tasks/{taskId}/<action>} with an optional {@code {"reason":…}}: one request of the client. */
    private void taskRequest(RoutesConfig routes, String action,
                             BiFunction<String, String, CompletableFuture<RecordMetadata>> send) {
        routes.post("/tasks/{taskId}/" + action, ctx -> {
            String taskId = taskId(ctx);
            accepted(ctx, taskId, send.apply(taskId, reason(ctx)));
        });
    }

    private void schedule(Context ctx) throws IOException {
        // The body read with the topics' rules, then written back for JsonForms: the same schedule a topic record makes.
        ObjectNode body = object(ctx);
        JsonNode taskIdField = body.remove("taskId");
        if (taskIdField == null || !taskIdField.isTextual()) {
            throw HttpError.badRequest("taskId must be given as a string in the body");
        }
        String taskId = taskIdField.asText();
        ScheduleValidator.validateTaskId(taskId);
        SpecificRecord request = JsonForms.parseRequest(EXACT.writeValueAsBytes(body));
        if (!(request instanceof ScheduleRequest schedule)) {
            throw HttpError.badRequest("POST /tasks takes a schedule; cancel, replay, trigger, pause or resume with POST"
                    + " /tasks/{taskId}/cancel, /replay, /trigger, /pause or /resume");
        }
        validator.validate(taskId, schedule);
        accepted(ctx, taskId, sender.send(taskId, schedule));
    }

    private static String taskId(Context ctx) {
        String taskId = ctx.pathParam("taskId");
        ScheduleValidator.validateTaskId(taskId);
        return taskId;
    }

    /** The optional {@code reason} of a cancel, replay, trigger, pause or resume. */
    private String reason(Context ctx) {
        if (guard.body(ctx).length == 0) {
            return null;
        }
        ObjectNode body = object(ctx);
        JsonNode reason = body.remove("reason");
        if (!body.isEmpty()) {
            throw HttpError.badRequest("unknown field(s) " + body.properties().stream().limit(5).map(e -> Quote.of(e.getKey()))
                    .toList() + ": a cancel, replay, trigger, pause or resume body takes only \"reason\"");
        }
        if (reason == null || reason.isNull()) {
            return null;
        }
        if (!reason.isTextual()) {
            throw HttpError.badRequest("reason must be a string");
        }
        ScheduleValidator.requireLength("reason", reason.asText(), ScheduleValidator.MAX_REASON_CHARS);
        return reason.asText();
    }

    /** The body, one JSON object read with the topics' rules ({@link StrictJson}: duplicates, trailing content, depth). */
    private ObjectNode object(Context ctx) {
        JsonNode body;
        try {
            body = StrictJson.readTree(guard.body(ctx));
        } catch (InvalidRequestException e) {
            throw HttpError.badRequest("body is not one JSON object: " + e.getMessage());
        }
        if (!body.isObject()) {
            throw HttpError.badRequest("body must be a JSON object");
        }
        return (ObjectNode) body;
    }

    private static void accepted(Context ctx, String taskId, CompletableFuture<RecordMetadata> acknowledged) {
        RecordMetadata metadata;
        try {
            metadata = acknowledged.get(ACK_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw HttpError.unavailable("Kafka did not take the request: " + e.getCause());
        } catch (TimeoutException e) {
            throw HttpError.unavailable("Kafka did not acknowledge the request within " + ACK_TIMEOUT_MS + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw HttpError.unavailable("interrupted while waiting for Kafka");
        }
        Responses.json(ctx, 202, TaskView.MAPPER.createObjectNode().put("taskId", taskId).put("topic", metadata.topic())
                .put("partition", metadata.partition()).put("offset", metadata.offset()));
    }
}
