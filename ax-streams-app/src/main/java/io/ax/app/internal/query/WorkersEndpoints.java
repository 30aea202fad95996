package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.metrics.ReportedWorkers;
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
 * workers topic this instance refused. Workers that never announced but name themselves on their reports are listed
 * too, {@code state} REPORTING, from every instance's {@link ReportedWorkers} (each sees its own partitions' reports).
 */
final class WorkersEndpoints implements EndpointGroup {
    static final int IN_FLIGHT_LISTED = 10;
    private static final Duration PEER_TIMEOUT = Duration.ofSeconds(5);

    private final KafkaStreams streams;
    private final Cluster cluster;
    private final SchedulerMetrics metrics;
    private final java.time.Clock clock = java.time.Clock.systemUTC();

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
        Map<String, ObjectNode> reported = new TreeMap<>();
        merge(reported, localReported());
        ObjectNode body = TaskView.MAPPER.createObjectNode();
        if (ctx.header(Cluster.FORWARDED) != null) { // another instance asks for this one's part
            ArrayNode parts = body.putArray("workers");
            workers.values().forEach(parts::add);
            body.set("reported", localReported());
            Responses.json(ctx, 200, body);
            return;
        }
        ArrayNode unanswered = TaskView.MAPPER.createArrayNode();
        for (JsonNode answer : fromOtherInstances("/workers", unanswered)) {
            answer.path("workers").forEach(worker -> workers.putIfAbsent(worker.path("workerId").asText(), worker));
            merge(reported, answer.path("reported"));
        }
        reported.keySet().removeAll(workers.keySet());
        ArrayNode list = body.putArray("workers");
        workers.values().forEach(worker -> list.add(trimmed(worker)));
        reported.values().forEach(list::add);
        body.put("alive", workers.values().stream().filter(w -> "ALIVE".equals(w.path("state").asText())).count());
        body.put("dead", workers.values().stream().filter(w -> "DEAD".equals(w.path("state").asText())).count());
        body.put("reporting", reported.size());
        if (!unanswered.isEmpty()) {
            body.set("unanswered", unanswered);
        }
        LimitsEndpoints.refused(body, metrics.workerErrors());
        Responses.json(ctx, 200, body);
    }

    /** This instance's view of workers from their reports, as JSON ({@code state} REPORTING: they never announced). */
    private ArrayNode localReported() {
        ArrayNode list = TaskView.MAPPER.createArrayNode();
        for (ReportedWorkers.Reported worker : metrics.reportedWorkers().snapshot(clock.millis())) {
            ObjectNode json = list.addObject().put("workerId", worker.workerId()).put("state", "REPORTING")
                    .put("announced", false).put("lastReportAt", Instant.ofEpochMilli(worker.lastReportMs()).toString())
                    .put("reports", worker.reports());
            ArrayNode inFlight = json.putArray("inFlight");
            worker.inFlight().forEach(e -> {
                ObjectNode execution = inFlight.addObject().put("executionId", e.executionId());
                if (e.taskId() != null) {
                    execution.put("taskId", e.taskId());
                }
            });
            json.put("inFlightCount", worker.inFlight().size());
        }
        return list;
    }

    /** Adds one instance's reported workers: the latest report wins its time, reports add up, executions are joined. */
    private static void merge(Map<String, ObjectNode> into, JsonNode reported) {
        for (JsonNode worker : reported) {
            String id = worker.path("workerId").asText();
            ObjectNode known = into.get(id);
            if (known == null) {
                into.put(id, ((ObjectNode) worker).deepCopy());
                continue;
            }
            if (worker.path("lastReportAt").asText().compareTo(known.path("lastReportAt").asText()) > 0) {
                known.put("lastReportAt", worker.path("lastReportAt").asText());
            }
            known.put("reports", known.path("reports").asLong() + worker.path("reports").asLong());
            ArrayNode inFlight = (ArrayNode) known.path("inFlight");
            for (JsonNode execution : worker.path("inFlight")) {
                if (inFlight.size() < IN_FLIGHT_LISTED) {
                    inFlight.add(execution);
                }
            }
            known.put("inFlightCount", known.path("inFlightCount").asInt() + worker.path("inFlightCount").asInt());
        }
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
            for (JsonNode answer : fromOtherInstances("/workers/" + Cluster.segment(id), TaskView.MAPPER.createArrayNode())) {
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

    /**
     * The answers of every other instance (200 only): those holding a part of the registry must answer (else 503); one
     * that holds none and does not answer is named in {@code unanswered} (its reported workers are missing).
     */
    private List<JsonNode> fromOtherInstances(String pathAndQuery, ArrayNode unanswered) {
        java.util.Set<HostInfo> holders = new java.util.HashSet<>();
        for (StreamsMetadata instance : streams.streamsMetadataForStore(AxStores.WORKERS)) {
            if (!instance.topicPartitions().isEmpty()) {
                holders.add(instance.hostInfo());
            }
        }
        List<HostInfo> hosts = new ArrayList<>(cluster.allInstances());
        hosts.removeIf(cluster::isSelf);
        List<JsonNode> answers = new ArrayList<>();
        Map<HostInfo, CompletableFuture<Cluster.PeerAnswer>> asked = cluster.askEach(hosts, pathAndQuery, PEER_TIMEOUT);
        asked.forEach((host, answer) -> {
            String why;
            try {
                Cluster.PeerAnswer peer = answer.get();
                if (peer.status() == 200 || peer.status() == 404) {
                    if (peer.status() == 200) {
                        answers.add(peer.body());
                    }
                    return;
                }
                why = "answered " + peer.status();
            } catch (ExecutionException e) {
                why = "did not answer: " + e.getCause();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw HttpError.unavailable("interrupted while asking " + Cluster.address(host));
            }
            if (holders.contains(host)) {
                throw HttpError.unavailable("instance " + Cluster.address(host) + ", which holds the worker registry, " + why);
            }
            unanswered.add(Cluster.address(host));
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
