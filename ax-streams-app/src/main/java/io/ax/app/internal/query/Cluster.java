package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.app.internal.store.AxStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The scheduler's instances as Kafka Streams' metadata knows them (each one's {@code application.server} is its HTTP
 * address), and the HTTP calls to them. An instance asked about a task it does not own forwards the request to the
 * owner; a listing asks every instance for its part. Requests between instances carry the bearer token and the
 * {@link #FORWARDED} header, so a request is forwarded at most once.
 */
final class Cluster {
    static final String FORWARDED = "X-Ax-Forwarded";
    private static final Duration PEER_TIMEOUT = Duration.ofSeconds(10);

    private final KafkaStreams streams;
    private final HostInfo self;
    private final int partitions;
    private final Optional<String> token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    /** @param partitions the input topics' partition count, which every listing must cover */
    Cluster(KafkaStreams streams, HostInfo self, int partitions, Optional<String> token) {
        this.streams = streams;
        this.self = self;
        this.partitions = partitions;
        this.token = token;
    }

    String self() {
        return address(self);
    }

    static String address(HostInfo host) {
        return host.host() + ":" + host.port();
    }

    /** Where {@code taskId} lives: the instance that owns its partition now. */
    KeyQueryMetadata ownerOf(String taskId) {
        requireRunning();
        KeyQueryMetadata owner = streams.queryMetadataForKey(AxStores.TASKS, taskId, Serdes.String().serializer());
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE) || owner.activeHost() == null
                || owner.activeHost().port() <= 0) {
            throw HttpError.unavailable("no instance owns the partition of task " + taskId + " now (rebalancing); ask again shortly");
        }
        return owner;
    }

    boolean isSelf(HostInfo host) {
        return self.equals(host);
    }

    /**
     * Every instance that owns partitions now, this one first among them; 503 unless together they own every
     * partition (a listing over part of them would silently miss tasks).
     */
    List<HostInfo> instances() {
        requireRunning();
        Collection<StreamsMetadata> all = streams.streamsMetadataForStore(AxStores.TASKS);
        Set<Integer> covered = new TreeSet<>();
        List<HostInfo> hosts = new ArrayList<>();
        for (StreamsMetadata instance : all) {
            instance.topicPartitions().forEach(partition -> covered.add(partition.partition()));
            if (instance.hostInfo().port() > 0 && !instance.topicPartitions().isEmpty()) {
                hosts.add(instance.hostInfo());
            }
        }
        if (partitions > 0 && covered.size() < partitions) {
            throw HttpError.unavailable("only partitions " + covered + " of " + partitions
                    + " are owned by an instance now (rebalancing); ask again shortly");
        }
        hosts.sort((a, b) -> isSelf(a) ? -1 : isSelf(b) ? 1 : address(a).compareTo(address(b)));
        return hosts;
    }

    private void requireRunning() {
        if (streams.state() != KafkaStreams.State.RUNNING) {
            throw HttpError.unavailable("the scheduler is " + streams.state() + ", not RUNNING; ask again shortly");
        }
    }

    /**
     * Every instance of the application Kafka Streams' metadata knows now (with or without partitions, running or
     * not), this one first; unlike {@link #instances} it asks for no state and no coverage, so it answers while
     * rebalancing too.
     */
    List<HostInfo> allInstances() {
        List<HostInfo> hosts = new ArrayList<>();
        hosts.add(self);
        for (StreamsMetadata instance : streams.metadataForAllStreamsClients()) {
            HostInfo host = instance.hostInfo();
            if (host.port() > 0 && !hosts.contains(host)) {
                hosts.add(host);
            }
        }
        hosts.subList(1, hosts.size()).sort((a, b) -> address(a).compareTo(address(b)));
        return hosts;
    }

    int partitions() {
        return partitions;
    }

    /**
     * GET {@code pathAndQuery} from each of {@code hosts} at once, each given at most {@code timeout}: its answer, or why
     * it has none (the failure, the timeout). One instance that does not answer does not fail the others'.
     */
    Map<HostInfo, CompletableFuture<PeerAnswer>> askEach(List<HostInfo> hosts, String pathAndQuery, Duration timeout) {
        Map<HostInfo, CompletableFuture<PeerAnswer>> asked = new LinkedHashMap<>();
        for (HostInfo host : hosts) {
            asked.put(host, getAsync(host, pathAndQuery, timeout).orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS));
        }
        return asked;
    }

    /** GET {@code pathAndQuery} from another instance: its status and JSON body. */
    PeerAnswer get(HostInfo host, String pathAndQuery) {
        return join(host, getAsync(host, pathAndQuery));
    }

    /**
     * One answer from every instance that owns partitions, asked at once: {@code here} for this one, the JSON object
     * GET {@code pathAndQuery} answers (200 only) for the others, decoded by {@code decode}. Any instance that fails
     * fails the whole answer: a listing missing an instance's tasks would be wrong, not partial.
     */
    <T> List<T> fromEveryInstance(Supplier<T> here, String pathAndQuery, Function<ObjectNode, T> decode) {
        List<HostInfo> hosts = instances();
        Map<HostInfo, CompletableFuture<PeerAnswer>> asked = new LinkedHashMap<>();
        for (HostInfo host : hosts) {
            if (!isSelf(host)) {
                asked.put(host, getAsync(host, pathAndQuery));
            }
        }
        List<T> answers = new ArrayList<>();
        try {
            if (hosts.stream().anyMatch(this::isSelf)) {
                answers.add(here.get());
            }
            asked.forEach((host, answer) -> answers.add(decode.apply(ok(host, join(host, answer)))));
        } finally {
            asked.values().forEach(answer -> answer.cancel(true));
        }
        return answers;
    }

    private CompletableFuture<PeerAnswer> getAsync(HostInfo host, String pathAndQuery) {
        return getAsync(host, pathAndQuery, PEER_TIMEOUT);
    }

    private CompletableFuture<PeerAnswer> getAsync(HostInfo host, String pathAndQuery, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + address(host) + pathAndQuery))
                .timeout(timeout).header(FORWARDED, self()).header("Accept", "application/json").GET();
        token.ifPresent(value -> request.header("Authorization", "Bearer " + value));
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray()).thenApply(response -> {
            try {
                JsonNode body = response.body().length == 0 ? TaskView.MAPPER.createObjectNode()
                        : TaskView.MAPPER.readTree(response.body());
                return new PeerAnswer(response.statusCode(), body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private static PeerAnswer join(HostInfo host, CompletableFuture<PeerAnswer> answer) {
        try {
            return answer.get();
        } catch (ExecutionException e) {
            throw HttpError.unavailable("instance " + address(host) + " did not answer: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw HttpError.unavailable("interrupted while asking instance " + address(host));
        }
    }

    private static ObjectNode ok(HostInfo host, PeerAnswer answer) {
        if (answer.status() != 200 || !answer.body().isObject()) {
            throw HttpError.of(answer.status() == 200 ? 502 : answer.status(),
                    "instance " + address(host) + ": " + answer.body().path("error").asText(answer.body().toString()));
        }
        return (ObjectNode) answer.body();
    }

    /** A path segment, percent-encoded. */
    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    record PeerAnswer(int status, JsonNode body) {
    }
}
