package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.AxTopics;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;

/**
 * {@code GET /health}: this instance (stream state, its partitions, how far behind each input partition it reads);
 * 200 while RUNNING, else 503. {@code GET /stats}: tasks by state and by jobType over the whole scheduler, summed from
 * every partition's counters (bounded work: one key per state and jobType).
 */
final class StatusEndpoints {
    private final KafkaStreams streams;
    private final LocalQueries local;
    private final Cluster cluster;
    private final AxTopics topics;

    StatusEndpoints(KafkaStreams streams, LocalQueries local, Cluster cluster, AxTopics topics) {
        this.streams = streams;
        this.local = local;
        this.cluster = cluster;
        this.topics = topics;
    }

    void register(RoutesConfig routes) {
        routes.get("/health", this::health);
        routes.get("/stats", this::stats);
        routes.get("/internal/stats", ctx -> Responses.json(ctx, 200, countsJson(local.counts())));
    }

    private void health(Context ctx) {
        KafkaStreams.State state = streams.state();
        ObjectNode json = TaskView.MAPPER.createObjectNode();
        json.put("state", state.name());
        json.put("instance", cluster.self());
        Set<Integer> active = new TreeSet<>();
        Set<Integer> standby = new TreeSet<>();
        streams.metadataForLocalThreads().forEach(thread -> {
            thread.activeTasks().forEach(task -> active.add(task.taskId().partition()));
            thread.standbyTasks().forEach(task -> standby.add(task.taskId().partition()));
        });
        ArrayNode activeJson = json.putObject("partitions").putArray("active");
        active.forEach(activeJson::add);
        ArrayNode standbyJson = json.withObject("partitions").putArray("standby");
        standby.forEach(standbyJson::add);
        ArrayNode lags = json.putArray("inputLag");
        Set<String> inputs = Set.of(topics.requests(), topics.results(), topics.retry());
        for (var entry : streams.metrics().entrySet()) {
            MetricName name = entry.getKey();
            if (name.name().equals("records-lag") && name.group().equals("consumer-fetch-manager-metrics")
                    && inputs.contains(name.tags().get("topic"))) {
                lags.addObject().put("topic", name.tags().get("topic"))
                        .put("partition", Integer.parseInt(name.tags().get("partition")))
                        .put("lag", lag(entry.getValue()));
            }
        }
        if (state != KafkaStreams.State.RUNNING) {
            ctx.header("Retry-After", Integer.toString(HttpError.RETRY_AFTER_SECONDS));
        }
        Responses.json(ctx, state == KafkaStreams.State.RUNNING ? 200 : 503, json);
    }

    private static long lag(Metric metric) {
        Object value = metric.metricValue();
        return value instanceof Number number && !Double.isNaN(number.doubleValue()) ? number.longValue() : -1;
    }

    private void stats(Context ctx) {
        LocalQueries.Counts total = local.counts();
        for (HostInfo host : cluster.instances()) {
            if (!cluster.isSelf(host)) {
                ObjectNode counts = cluster.getOk(host, "/internal/stats");
                LocalQueries.Counts remote = new LocalQueries.Counts(new java.util.TreeMap<>(), new java.util.TreeMap<>());
                counts.withObject("byState").properties().forEach(e -> remote.byState().put(e.getKey(), e.getValue().asLong()));
                counts.withObject("byJobType").properties().forEach(e -> remote.byJobType().put(e.getKey(), e.getValue().asLong()));
                total.add(remote);
            }
        }
        Responses.json(ctx, 200, countsJson(total));
    }

    private static ObjectNode countsJson(LocalQueries.Counts counts) {
        ObjectNode json = TaskView.MAPPER.createObjectNode();
        json.put("total", counts.byState().values().stream().mapToLong(Long::longValue).sum());
        ObjectNode byState = json.putObject("byState");
        counts.byState().forEach(byState::put);
        ObjectNode byJobType = json.putObject("byJobType");
        counts.byJobType().forEach(byJobType::put);
        return json;
    }
}
