package io.ax.app.internal.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import java.io.UncheckedIOException;

/** JSON answers, and the error form every endpoint shares: {@code {"error":"…"}}. */
final class Responses {
    private Responses() {
    }

    static void json(Context ctx, int status, JsonNode body) {
        try {
            ctx.status(status).contentType("application/json").result(TaskView.MAPPER.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void error(Context ctx, int status, String message) {
        if (status == 503) {
            ctx.header("Retry-After", Integer.toString(HttpError.RETRY_AFTER_SECONDS));
        }
        if (status == 401) {
            ctx.header("WWW-Authenticate", "Bearer");
        }
        json(ctx, status, TaskView.MAPPER.createObjectNode().put("error", message));
    }
}
