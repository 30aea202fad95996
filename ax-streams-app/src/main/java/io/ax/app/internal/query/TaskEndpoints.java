package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.schema.TaskState;
import io.ax.validation.ScheduleValidator;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Optional;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * {@code GET /tasks/{taskId}} (with its history of state changes), {@code GET /executions/{executionId}} (the latest
 * execution of a task, or an older one its history still holds), {@code GET /tasks?…} and {@code GET /dead-letters}:
 * any instance answers for the whole scheduler. A task is read where it lives (the request is forwarded to the
 * instance owning its partition); an execution id (a hash, from which the taskId cannot be told) is looked up in the
 * execution index of every instance; a listing merges one page from every instance. The {@code /internal/…} routes
 * are the per-instance halves the others call.
 */
final class TaskEndpoints implements EndpointGroup {
    private final LocalQueries local;
    private final Cluster cluster;

    TaskEndpoints(LocalQueries local, Cluster cluster) {
        this.local = local;
        this.cluster = cluster;
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/tasks/{taskId}", this::task);
        routes.get("/executions/{executionId}", this::execution);
        routes.get("/tasks", ctx -> Responses.json(ctx, 200, list(ListQuery.parse(ctx::queryParam)).toPublicJson()));
        routes.get("/dead-letters", ctx -> Responses.json(ctx, 200,
                list(ListQuery.parse(ctx::queryParam).withState(TaskState.FAILED)).toPublicJson()));
        routes.get("/internal/tasks", ctx -> Responses.json(ctx, 200, local.list(ListQuery.parse(ctx::queryParam)).toInternalJson()));
        routes.get("/internal/executions/{executionId}", ctx -> {
            String executionId = executionId(ctx);
            Responses.json(ctx, 200, local.execution(executionId).orElseThrow(() -> unknownExecution(executionId)));
        });
    }

    private void task(Context ctx) {
        String taskId = ctx.pathParam("taskId");
        ScheduleValidator.validateTaskId(taskId);
        KeyQueryMetadata owner = cluster.ownerOf(taskId);
        if (cluster.isSelf(owner.activeHost())) {
            Responses.json(ctx, 200, local.task(owner.partition(), taskId).orElseThrow(() -> unknownTask(taskId)));
        } else if (ctx.header(Cluster.FORWARDED) != null) {
            throw HttpError.unavailable("task " + taskId + " moved while the request was forwarded; ask again shortly");
        } else {
            Cluster.PeerAnswer answer = cluster.get(owner.activeHost(), "/tasks/" + Cluster.segment(taskId));
            Responses.json(ctx, answer.status(), answer.body());
        }
    }

    private void execution(Context ctx) {
        String executionId = executionId(ctx);
        for (HostInfo host : cluster.instances()) {
            Optional<ObjectNode> found = cluster.isSelf(host) ? local.execution(executionId) : remoteExecution(host, executionId);
            if (found.isPresent()) {
                Responses.json(ctx, 200, found.get());
                return;
            }
        }
        throw unknownExecution(executionId);
    }

    private Optional<ObjectNode> remoteExecution(HostInfo host, String executionId) {
        Cluster.PeerAnswer answer = cluster.get(host, "/internal/executions/" + Cluster.segment(executionId));
        if (answer.status() == 404) {
            return Optional.empty();
        }
        if (answer.status() != 200 || !answer.body().isObject()) {
            throw HttpError.of(answer.status(), "instance " + Cluster.address(host) + ": " + answer.body().path("error").asText());
        }
        return Optional.of((ObjectNode) answer.body());
    }

    /** One page over every instance: each gives its own, merged exactly (see {@link Page#merge}). */
    private Page list(ListQuery query) {
        return Page.merge(cluster.fromEveryInstance(() -> local.list(query), "/internal/tasks?" + query.toQueryString(),
                Page::fromInternalJson), query.limit());
    }

    private static String executionId(Context ctx) {
        String executionId = ctx.pathParam("executionId");
        ScheduleValidator.requireLength("executionId", executionId, ScheduleValidator.MAX_ID_CHARS);
        return executionId;
    }

    private static HttpError unknownTask(String taskId) {
        return HttpError.notFound("no task " + taskId + " (never scheduled, or purged after its retention)");
    }

    private static HttpError unknownExecution(String executionId) {
        return HttpError.notFound("no task has " + executionId + " as its latest execution or in its history"
                + " (the last ax.history.max.events changes of each task)");
    }
}
