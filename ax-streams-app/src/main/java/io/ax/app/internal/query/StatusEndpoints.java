package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.AxTopics;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

/**
 * {@code GET /health}: this instance (stream state, its partitions, how far behind each input partition it reads);
 * 200 while RUNNING, else 503. {@code GET /stats}: tasks by state and by jobType over the whole scheduler, summed from
 * every partition's counters (bounded work: one key per state and jobType).
 */
final class StatusEndpoints implements EndpointGroup {
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

    @Override
    public void register(RoutesConfig routes) {
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
        // The main consumers' own lag metrics (records behind the end of each assigned partition, as of the last fetch):
        // readable from any thread, unlike the stream thread's view of its inputs.
        List<InputLag> found = new ArrayList<>();
        for (var entry : streams.metrics().entrySet()) {
            MetricName name = entry.getKey();
            if (name.name().equals("records-lag") && name.group().equals("consumer-fetch-manager-metrics")
                    && inputs.contains(name.tags().get("topic"))) {
                found.add(new InputLag(name.tags().get("topic"), Integer.parseInt(name.tags().get("partition")), lag(entry.getValue())));
            }
        }
        found.sort(Comparator.comparing(InputLag::topic).thenComparingInt(InputLag::partition));
        found.forEach(lag -> lags.addObject().put("topic", lag.topic()).put("partition", lag.partition()).put("lag", lag.lag()));
        if (state != KafkaStreams.State.RUNNING) {
            ctx.header("Retry-After", Integer.toString(HttpError.RETRY_AFTER_SECONDS));
        }
        Responses.json(ctx, state == KafkaStreams.State.RUNNING ? 200 : 503, json);
    }

    private record InputLag(String topic, int partition, long lag) {
    }

    private static long lag(Metric metric) {
        Object value = metric.metricValue();
        return value instanceof Number number && !Double.isNaN(number.doubleValue()) ? number.longValue() : -1;
    }

    private void stats(Context ctx) {
        LocalQueries.Counts total = new LocalQueries.Counts(new TreeMap<>(), new TreeMap<>());
        cluster.fromEveryInstance(local::counts, "/internal/stats", StatusEndpoints::countsOf).forEach(total::add);
        Responses.json(ctx, 200, countsJson(total));
    }

    private static LocalQueries.Counts countsOf(ObjectNode json) {
        LocalQueries.Counts counts = new LocalQueries.Counts(new TreeMap<>(), new TreeMap<>());
        json.withObject("byState").properties().forEach(e -> counts.byState().put(e.getKey(), e.getValue().asLong()));
        json.withObject("byJobType").properties().forEach(e -> counts.byJobType().put(e.getKey(), e.getValue().asLong()));
        return counts;
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
