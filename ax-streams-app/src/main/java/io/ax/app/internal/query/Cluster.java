package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.app.internal.store.AxStores;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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

    /** GET {@code pathAndQuery} from another instance: its status and JSON body. */
    PeerAnswer get(HostInfo host, String pathAndQuery) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://" + address(host) + pathAndQuery))
                .timeout(PEER_TIMEOUT).header(FORWARDED, self()).header("Accept", "application/json").GET();
        token.ifPresent(value -> request.header("Authorization", "Bearer " + value));
        try {
            HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            JsonNode body = response.body().length == 0 ? TaskView.MAPPER.createObjectNode() : TaskView.MAPPER.readTree(response.body());
            return new PeerAnswer(response.statusCode(), body);
        } catch (IOException e) {
            throw HttpError.unavailable("instance " + address(host) + " did not answer: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw HttpError.unavailable("interrupted while asking instance " + address(host));
        }
    }

    /** GET from a peer that must answer 200 with an object: anything else is passed on as this answer's error. */
    ObjectNode getOk(HostInfo host, String pathAndQuery) {
        PeerAnswer answer = get(host, pathAndQuery);
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
