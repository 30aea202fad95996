package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.workers.WorkerEntry;
import io.ax.validation.Quote;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * {@code GET /workers} (every worker the registry holds, by id: its last announcement, {@code state} ALIVE or DEAD,
 * {@code lastSeenAt}, {@code deadAt}; at most {@value #IN_FLIGHT_LISTED} executions in flight each, {@code inFlightCount}
 * says how many) and {@code GET /workers/{id}} (one, with every execution it announced). The registry lives in the
 * stream task of the workers topic (one partition as the scheduler creates it), so the instance that holds it answers
 * from its store and any other asks it (asked instances answer from their own store only). Also the records of the
 * workers topic this instance refused.
 */
final class WorkersEndpoints implements EndpointGroup {
    static final int IN_FLIGHT_LISTED = 10;
    private static final Duration PEER_TIMEOUT = Duration.ofSeconds(5);

    private final KafkaStreams streams;
    private final Cluster cluster;
    private final SchedulerMetrics metrics;

    WorkersEndpoints(KafkaStreams streams, Cluster cluster, SchedulerMetrics metrics) {
        this.streams = streams;
        this.cluster = cluster;
        this.metrics = metrics;
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/workers/{id}", this::worker);
        routes.get("/workers", this::list);
    }

    private void list(Context ctx) {
        Map<String, JsonNode> workers = new TreeMap<>();
        local(Integer.MAX_VALUE).forEach(worker -> workers.put(worker.path("workerId").asText(), worker));
        if (ctx.header(Cluster.FORWARDED) == null) {
            for (JsonNode answer : fromOtherInstances("/workers")) {
                answer.path("workers").forEach(worker -> workers.putIfAbsent(worker.path("workerId").asText(), worker));
            }
        }
        ObjectNode body = TaskView.MAPPER.createObjectNode();
        ArrayNode list = body.putArray("workers");
        workers.values().forEach(worker -> list.add(trimmed(worker)));
        body.put("alive", workers.values().stream().filter(w -> "ALIVE".equals(w.path("state").asText())).count());
        body.put("dead", workers.values().stream().filter(w -> "DEAD".equals(w.path("state").asText())).count());
        LimitsEndpoints.refused(body, metrics.workerErrors());
        Responses.json(ctx, 200, body);
    }

    private void worker(Context ctx) {
        String id = ctx.pathParam("id");
        if (id.length() > io.ax.validation.ScheduleValidator.MAX_ID_CHARS) {
            throw HttpError.badRequest("a worker id is at most " + io.ax.validation.ScheduleValidator.MAX_ID_CHARS + " chars");
        }
        byte[] bytes = readLocal(store -> store.get(id));
        if (bytes != null) {
            Responses.json(ctx, 200, toJson(WorkerEntry.decode(id, bytes)));
            return;
        }
        if (ctx.header(Cluster.FORWARDED) == null) {
            for (JsonNode answer : fromOtherInstances("/workers/" + Cluster.segment(id))) {
                if (answer.has("workerId")) {
                    Responses.json(ctx, 200, answer);
                    return;
                }
            }
        }
        throw HttpError.notFound("no worker " + Quote.of(id) + " in the registry");
    }

    private List<JsonNode> local(int max) {
        List<JsonNode> workers = new ArrayList<>();
        readLocal(store -> {
            try (KeyValueIterator<String, byte[]> all = store.all()) {
                while (all.hasNext() && workers.size() < max) {
                    var next = all.next();
                    try {
                        workers.add(toJson(WorkerEntry.decode(next.key, next.value)));
                    } catch (RuntimeException e) { // written by another version; the processor forgets it on its next start
                        continue;
                    }
                }
            }
            return null;
        });
        return workers;
    }

    /** The answers of the other instances that hold a part of the registry (200 only; one that fails is skipped, named). */
    private List<JsonNode> fromOtherInstances(String pathAndQuery) {
        List<HostInfo> hosts = new ArrayList<>();
        for (StreamsMetadata instance : streams.streamsMetadataForStore(AxStores.WORKERS)) {
            if (instance.hostInfo().port() > 0 && !cluster.isSelf(instance.hostInfo()) && !instance.topicPartitions().isEmpty()) {
                hosts.add(instance.hostInfo());
            }
        }
        List<JsonNode> answers = new ArrayList<>();
        Map<HostInfo, CompletableFuture<Cluster.PeerAnswer>> asked = cluster.askEach(hosts, pathAndQuery, PEER_TIMEOUT);
        asked.forEach((host, answer) -> {
            try {
                Cluster.PeerAnswer peer = answer.get();
                if (peer.status() == 200) {
                    answers.add(peer.body());
                } else if (peer.status() != 404) {
                    throw HttpError.unavailable("instance " + Cluster.address(host) + " holding the worker registry answered "
                            + peer.status());
                }
            } catch (ExecutionException e) {
                throw HttpError.unavailable("instance " + Cluster.address(host) + " holding the worker registry did not answer: "
                        + e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw HttpError.unavailable("interrupted while asking " + Cluster.address(host));
            }
        });
        return answers;
    }

    private interface StoreRead<T> {
        T read(ReadOnlyKeyValueStore<String, byte[]> store);
    }

    /** Reads this instance's part of the registry; null when it holds none (or none that can be read now). */
    private <T> T readLocal(StoreRead<T> read) {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            throw HttpError.unavailable("the scheduler is " + streams.state() + ", not RUNNING; ask again shortly");
        }
        ReadOnlyKeyValueStore<String, byte[]> store;
        try {
            store = streams.store(StoreQueryParameters.fromNameAndType(AxStores.WORKERS, QueryableStoreTypes.keyValueStore()));
        } catch (InvalidStateStoreException e) {
            return null; // not held here (another instance has it) or migrating
        }
        try {
            return read.read(store);
        } catch (InvalidStateStoreException e) {
            return null;
        }
    }

    static ObjectNode toJson(WorkerEntry entry) {
        ObjectNode json = (ObjectNode) io.ax.codec.StrictJson.readTree(entry.announcement().toJson());
        json.put("state", entry.dead() ? "DEAD" : "ALIVE");
        json.put("lastSeenAt", Instant.ofEpochMilli(entry.lastSeenMs()).toString());
        if (entry.dead()) {
            json.put("deadAt", Instant.ofEpochMilli(entry.deadAtMs()).toString());
        }
        return json;
    }

    private static JsonNode trimmed(JsonNode worker) {
        JsonNode inFlight = worker.path("inFlight");
        if (!inFlight.isArray() || inFlight.size() <= IN_FLIGHT_LISTED) {
            return worker;
        }
        ObjectNode copy = ((ObjectNode) worker).deepCopy();
        ArrayNode kept = copy.putArray("inFlight");
        for (int i = 0; i < IN_FLIGHT_LISTED; i++) {
            kept.add(inFlight.get(i));
        }
        return copy;
    }
}
