package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.AxTopics;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;

/**
 * {@code GET /health}: this instance (stream state, its partitions, how far behind each input partition it reads) and,
 * under {@code cluster}, every instance of the application: each other one's own health, asked at once through
 * {@code GET /internal/health} within {@link #PEER_HEALTH_TIMEOUT} (an instance that does not answer is listed with
 * {@code reachable: false} and why, and the call still answers), and who holds each partition as Kafka Streams'
 * metadata has it. 200 while this instance is RUNNING, else 503. {@code GET /internal/health}: this instance alone (what a
 * liveness probe should ask: it calls no other instance). {@code GET /stats}: tasks by state and by jobType over the whole scheduler, summed from
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

    static final Duration PEER_HEALTH_TIMEOUT = Duration.ofSeconds(3);

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/health", this::health);
        routes.get("/internal/health", this::ownHealth);
        routes.get("/stats", this::stats);
        routes.get("/internal/stats", ctx -> Responses.json(ctx, 200, countsJson(local.counts())));
    }

    private void ownHealth(Context ctx) {
        respond(ctx, ownHealth());
    }

    private void health(Context ctx) {
        ObjectNode json = ownHealth();
        try {
            json.set("cluster", clusterHealth(json));
        } catch (IllegalStateException | InvalidStateStoreException notRunning) { // no metadata while created, shutting down or failed
            json.putObject("cluster").put("error", "no cluster metadata here now (" + json.get("state").asText() + "): "
                    + notRunning.getMessage());
        }
        respond(ctx, json);
    }

    private void respond(Context ctx, ObjectNode json) {
        boolean running = KafkaStreams.State.RUNNING.name().equals(json.get("state").asText());
        if (!running) {
            ctx.header("Retry-After", Integer.toString(HttpError.RETRY_AFTER_SECONDS));
        }
        Responses.json(ctx, running ? 200 : 503, json);
    }

    /**
     * Every instance's own health (this one's is {@code own}) and each partition's active and standby holders. Work is
     * bounded by the instance count; the peers are asked in parallel, so the call takes at most about one timeout.
     */
    private ObjectNode clusterHealth(ObjectNode own) {
        List<HostInfo> hosts = cluster.allInstances();
        Map<HostInfo, CompletableFuture<Cluster.PeerAnswer>> asked =
                cluster.askEach(hosts.subList(1, hosts.size()), "/internal/health", PEER_HEALTH_TIMEOUT);
        ObjectNode json = TaskView.MAPPER.createObjectNode();
        ArrayNode instances = json.putArray("instances");
        instances.add(own.deepCopy().put("reachable", true));
        asked.forEach((host, answer) -> instances.add(peerHealth(host, answer)));
        json.put("partitionCount", cluster.partitions());
        partitionsJson(json.putArray("partitions"));
        return json;
    }

    private static ObjectNode peerHealth(HostInfo host, CompletableFuture<Cluster.PeerAnswer> answer) {
        ObjectNode json = TaskView.MAPPER.createObjectNode();
        try {
            Cluster.PeerAnswer peer = answer.get();
            if (peer.body().isObject() && peer.body().has("state")) {
                json.setAll((ObjectNode) peer.body());
                json.put("instance", Cluster.address(host));
                json.put("reachable", true);
                return json;
            }
            json.put("error", "HTTP " + peer.status() + ": " + peer.body().path("error").asText(peer.body().toString()));
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            json.put("error", cause instanceof TimeoutException
                    ? "no answer within " + PEER_HEALTH_TIMEOUT.toMillis() + " ms" : String.valueOf(cause));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            json.put("error", "interrupted while asking");
        }
        json.put("instance", Cluster.address(host));
        json.put("reachable", false);
        return json;
    }

    /** Each input partition with the instance that processes it and those with a standby copy (Kafka Streams' metadata). */
    private void partitionsJson(ArrayNode into) {
        Map<Integer, String> active = new TreeMap<>();
        Map<Integer, Set<String>> standby = new TreeMap<>();
        for (StreamsMetadata instance : streams.metadataForAllStreamsClients()) {
            String address = Cluster.address(instance.hostInfo());
            // the requests topic's partitions: the flow gates' and the worker registry's tasks are numbered alike
            instance.topicPartitions().stream().filter(p -> p.topic().equals(topics.requests()))
                    .forEach(p -> active.put(p.partition(), address));
            instance.standbyTopicPartitions().stream().filter(p -> p.topic().equals(topics.requests()))
                    .forEach(p -> standby.computeIfAbsent(p.partition(), k -> new TreeSet<>()).add(address));
        }
        for (int partition = 0; partition < cluster.partitions(); partition++) {
            ObjectNode row = into.addObject().put("partition", partition).put("active", active.get(partition));
            ArrayNode standbys = row.putArray("standby");
            standby.getOrDefault(partition, Set.of()).forEach(standbys::add);
        }
    }

    /** Whether {@code task} is one of the scheduler's own, which hold the task stores (it reads the requests topic). */
    private boolean readsRequests(org.apache.kafka.streams.TaskMetadata task) {
        return task.topicPartitions().stream().anyMatch(partition -> partition.topic().equals(topics.requests()));
    }

    private ObjectNode ownHealth() {
        KafkaStreams.State state = streams.state();
        ObjectNode json = TaskView.MAPPER.createObjectNode();
        json.put("state", state.name());
        json.put("instance", cluster.self());
        Set<Integer> active = new TreeSet<>();
        Set<Integer> standby = new TreeSet<>();
        streams.metadataForLocalThreads().forEach(thread -> {
            thread.activeTasks().stream().filter(this::readsRequests).forEach(task -> active.add(task.taskId().partition()));
            thread.standbyTasks().stream().filter(this::readsRequests).forEach(task -> standby.add(task.taskId().partition()));
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
        return json;
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
