package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxTopics;
import io.ax.FlowLimit;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.cli.Cli;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster-wide limit held exactly (topology-docs/FLOW-CONTROL.md): two scheduler instances share six partitions; a job
 * type limited to N executions in flight has many tasks due at once on every partition; the worker counts how many of
 * that type run at once. Exactly N is reached, never more, and every task succeeds.
 */
@Tag("integration")
class FlowControlIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Clock CLOCK = Clock.systemUTC();
    private static final int LIMIT = 5;
    private static final int TASKS = 40;
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    private static AxConfig config(String instance, Path stateDir) {
        return config("flow", instance, stateDir);
    }

    private static AxConfig config(String name, String instance, Path stateDir) {
        Map<String, Object> props = new HashMap<>();
        props.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(AxConfig.APPLICATION_ID_CONFIG, "it-" + name);
        props.put(AxConfig.TOPIC_PREFIX_CONFIG, name + ".");
        props.put(AxConfig.TOPIC_PARTITIONS_CONFIG, 6);
        props.put(AxConfig.INSTANCE_NAME_CONFIG, instance);
        props.put(AxConfig.STATE_DIR_CONFIG, stateDir.resolve(instance).toString());
        return new AxConfig(props);
    }

    private static JsonNode json(byte[] value) {
        try {
            return MAPPER.readTree(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<String> succeeded(TopicRecorder state) {
        return state.seen().stream().map(s -> json(s.record().value())).filter(e -> "SUCCESS".equals(e.path("to").asText()))
                .map(e -> e.get("taskId").asText()).collect(Collectors.toSet());
    }

    @Test
    void shouldHoldAClusterWideMaxInFlightExactlyAcrossTwoInstances(@TempDir Path stateDir) throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        Map<String, Boolean> ran = new ConcurrentHashMap<>();
        int httpPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            httpPort = socket.getLocalPort();
        }
        Map<String, Object> withHttp = new HashMap<>(config("flow-a", stateDir).originals());
        withHttp.put(AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(httpPort));
        AxConfig first = new AxConfig(withHttp);
        AxTopics topics = first.topics();
        try (AxScheduler a = AxScheduler.start(first);
             AxScheduler b = AxScheduler.start(config("flow-b", stateDir));
             TopicRecorder state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK);
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             AxWorker worker = AxWorker.builder().bootstrapServers(broker.bootstrapServers()).topics(topics)
                     .groupId("flow.workers").concurrency(4 * LIMIT)
                     .handler("charge-card", 4 * LIMIT, context -> {
                         int now = running.incrementAndGet();
                         mostAtOnce.accumulateAndGet(now, Math::max);
                         try {
                             Thread.sleep(600); // the work: holds its slot longer than a grant takes to reach the next worker
                         } finally {
                             running.decrementAndGet();
                         }
                         ran.put(context.taskId(), true);
                         return Result.success();
                     })
                     .handler("email", context -> Result.success()).build()) {
            a.awaitRunning(Duration.ofMinutes(2));
            b.awaitRunning(Duration.ofMinutes(2));
            worker.start();
            client.setLimit("type:charge-card", FlowLimit.none().withMaxInFlight(LIMIT)).join();
            await().atMost(Duration.ofSeconds(30)).until(() -> a.limits().containsKey("type:charge-card")
                    && b.limits().containsKey("type:charge-card"));
            assertThat(a.limits()).containsEntry("type:charge-card", "{\"maxInFlight\":" + LIMIT + "}");

            // One of each through the whole loop first: the figures below are about flow control, not start-up.
            client.schedule("warm-charge").jobType("charge-card").after(Duration.ZERO).submit().join();
            client.schedule("warm-email").jobType("email").after(Duration.ZERO).submit().join();
            await().atMost(Duration.ofSeconds(60)).until(() -> succeeded(state).size() == 2);

            Instant due = CLOCK.instant().plusSeconds(2);
            List<CompletableFuture<?>> acks = new ArrayList<>();
            for (int i = 0; i < TASKS; i++) {
                acks.add(client.schedule("charge-" + i).jobType("charge-card").at(due).submit());
                acks.add(client.schedule("email-" + i).jobType("email").at(due).submit());
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();

            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> succeeded(state).size() == 2 * TASKS + 2);
            List<Long> emailLateness = triggeredLateness(state, "email-");
            List<Long> chargeLateness = triggeredLateness(state, "charge-");
            System.out.printf("RESULT flow maxInFlight=%d tasks=%d most_running_at_once=%d ungated_fire_lateness_ms p50=%d max=%d"
                            + " gated_first_%d_fire_lateness_ms max=%d%n", LIMIT, TASKS, mostAtOnce.get(), emailLateness.get(TASKS / 2),
                    emailLateness.get(TASKS - 1), LIMIT, chargeLateness.get(LIMIT - 1));
            assertThat(mostAtOnce.get()).as("the limit is reached and never passed").isEqualTo(LIMIT);
            assertThat(ran).hasSize(TASKS + 1);

            List<JsonNode> events = state.seen().stream().map(s -> json(s.record().value())).toList();
            assertThat(events).filteredOn(e -> e.path("reason").asText().startsWith("held: type:charge-card has " + LIMIT + " of " + LIMIT))
                    .as("held tasks are visible with the limit that holds them").isNotEmpty();
            assertThat(events).filteredOn(e -> e.get("taskId").asText().startsWith("email-"))
                    .as("the ungated type is never held").noneMatch(e -> e.path("reason").asText().startsWith("held"));
            Set<Integer> partitions = state.seen().stream().filter(s -> s.record().key().startsWith("charge-"))
                    .map(s -> s.record().partition()).collect(Collectors.toSet());
            assertThat(partitions).as("the limited tasks are spread over every partition").hasSize(6);

            shouldSetShowAndRefuseLimitsFromTheCli(a, b);
            JsonNode served = MAPPER.readTree(java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + httpPort + "/limits")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body());
            assertThat(served.get("limits").get("type:charge-card").get("maxInFlight").asInt()).isEqualTo(LIMIT);
            assertThat(served.get("refusedCount").asLong()).isEqualTo(1);
            assertThat(served.get("refused").get(0).get("reason").asText()).isEqualTo("maxInFlight must be between 1 and 1000000: 0");
        }
    }

    /**
     * A rebalance in the middle: one of the two instances stops while executions hold slots and others wait. Its task
     * partitions and gates move to the other instance (restored from their changelogs); grants pause meanwhile, and the
     * limit still holds: never more than N at once, every task runs once to SUCCESS.
     */
    @Test
    void shouldKeepTheLimitWhenAnInstanceLeavesMidway(@TempDir Path stateDir) throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        Map<String, Integer> runs = new ConcurrentHashMap<>();
        AxConfig first = config("flowr", "flowr-a", stateDir);
        AxTopics topics = first.topics();
        try (AxScheduler a = AxScheduler.start(first);
             TopicRecorder state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK);
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             AxWorker worker = AxWorker.builder().bootstrapServers(broker.bootstrapServers()).topics(topics)
                     .groupId("flowr.workers").concurrency(4 * LIMIT)
                     .handler("charge-card", 4 * LIMIT, context -> {
                         mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                         try {
                             Thread.sleep(400);
                         } finally {
                             running.decrementAndGet();
                         }
                         runs.merge(context.taskId(), 1, Integer::sum);
                         return Result.success();
                     }).build()) {
            AxScheduler b = AxScheduler.start(config("flowr", "flowr-b", stateDir));
            try {
                a.awaitRunning(Duration.ofMinutes(2));
                b.awaitRunning(Duration.ofMinutes(2));
                worker.start();
                client.setLimit("type:charge-card", FlowLimit.none().withMaxInFlight(LIMIT)).join();
                await().atMost(Duration.ofSeconds(30)).until(() -> a.limits().containsKey("type:charge-card")
                        && b.limits().containsKey("type:charge-card"));
                Instant due = CLOCK.instant().plusSeconds(2);
                List<CompletableFuture<?>> acks = new ArrayList<>();
                for (int i = 0; i < TASKS; i++) {
                    acks.add(client.schedule("charge-" + i).jobType("charge-card").at(due).submit());
                }
                CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
                await().atMost(Duration.ofSeconds(60)).until(() -> succeeded(state).size() >= TASKS / 4);
            } finally {
                b.close();
            }
            int beforeLeaving = succeeded(state).size();
            assertThat(beforeLeaving).as("the instance leaves midway").isLessThan(TASKS);
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> succeeded(state).size() == TASKS);
            System.out.printf("RESULT flow-rebalance maxInFlight=%d tasks=%d succeeded_before_leave=%d most_running_at_once=%d%n",
                    LIMIT, TASKS, beforeLeaving, mostAtOnce.get());
            assertThat(mostAtOnce.get()).as("the limit holds through the rebalance").isEqualTo(LIMIT);
            assertThat(runs).hasSize(TASKS).allSatisfy((taskId, count) -> assertThat(count).as(taskId).isEqualTo(1));
        }
    }

    /**
     * Owner maxLiveTasks exact across partitions and instances: a quota of 5 (set with the CLI), 20 tasks of the owner
     * submitted at once over six partitions shared by two instances: exactly 5 admitted (live), 15 REJECTED with the quota in
     * the reason. Then one instance leaves (its partitions, and maybe the owner's live gate, move to the other, restored
     * from their changelogs): the count holds, a further task is still REJECTED. One admitted task runs now and ends
     * SUCCESS: its slot is released, and the next submission is admitted.
     */
    @Test
    void shouldAdmitExactlyTheOwnersLiveTaskQuotaAcrossTwoInstances(@TempDir Path stateDir) throws Exception {
        int quota = 5;
        int submitted = 20;
        int httpPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            httpPort = socket.getLocalPort();
        }
        Map<String, Object> withHttp = new HashMap<>(config("flowq", "flowq-a", stateDir).originals());
        withHttp.put(AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(httpPort));
        AxConfig first = new AxConfig(withHttp);
        AxTopics topics = first.topics();
        AxScheduler b = AxScheduler.start(config("flowq", "flowq-b", stateDir));
        boolean bRunning = true;
        try (AxScheduler a = AxScheduler.start(first);
             TopicRecorder state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK);
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             AxWorker worker = AxWorker.builder().bootstrapServers(broker.bootstrapServers()).topics(topics)
                     .groupId("flowq.workers").handler("report", context -> Result.success()).build()) {
            a.awaitRunning(Duration.ofMinutes(2));
            b.awaitRunning(Duration.ofMinutes(2));
            worker.start();
            Cli.Run set = Cli.run("limits", "set", "owner:acme", "--max-live-tasks", Integer.toString(quota),
                    "--bootstrap", broker.bootstrapServers(), "--topic-prefix", "flowq.");
            assertThat(set.exitCode()).as(set.err()).isZero();
            assertThat(set.out()).startsWith("limits of owner:acme set to {\"maxLiveTasks\":" + quota + "}");
            await().atMost(Duration.ofSeconds(30)).until(() -> a.limits().containsKey("owner:acme") && b.limits().containsKey("owner:acme"));

            Instant due = CLOCK.instant().plus(Duration.ofHours(1));
            List<CompletableFuture<?>> acks = new ArrayList<>();
            for (int i = 0; i < submitted; i++) {
                acks.add(client.schedule("quota-" + i).jobType("report").owner("acme").at(due).submit());
            }
            CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> admitted(state, "quota-").size() + rejected(state, "quota-").size() == submitted);
            Set<String> admitted = admitted(state, "quota-");
            List<JsonNode> rejected = rejected(state, "quota-");
            List<Long> waitedMs = state.seen().stream().map(r -> json(r.record().value()).path("reason").asText())
                    .map(java.util.regex.Pattern.compile("^admitted by live:owner:acme after waiting (\\d+) ms")::matcher)
                    .filter(java.util.regex.Matcher::find).map(m -> Long.parseLong(m.group(1))).sorted().toList();
            System.out.printf("RESULT flow-quota maxLiveTasks=%d submitted=%d admitted=%d rejected=%d admission_wait_ms p50=%d max=%d%n",
                    quota, submitted, admitted.size(), rejected.size(), waitedMs.get(waitedMs.size() / 2), waitedMs.get(waitedMs.size() - 1));
            assertThat(admitted).as("exactly the quota is admitted").hasSize(quota);
            assertThat(rejected).hasSize(submitted - quota).allSatisfy(e -> assertThat(e.get("reason").asText())
                    .startsWith("owner acme has " + quota + " of " + quota + " live tasks (maxLiveTasks)"));
            Set<Integer> partitions = state.seen().stream().filter(r -> r.record().key().startsWith("quota-"))
                    .map(r -> r.record().partition()).collect(Collectors.toSet());
            assertThat(partitions).as("the owner's tasks are spread over the partitions of both instances").hasSizeGreaterThan(1);
            JsonNode served = MAPPER.readTree(java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + httpPort + "/limits")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body());
            assertThat(served.get("limits").get("owner:acme").get("maxLiveTasks").asInt()).isEqualTo(quota);

            b.close();
            bRunning = false;
            a.awaitRunning(Duration.ofMinutes(2));
            client.schedule("quota-late-1").jobType("report").owner("acme").at(due).submit().join();
            await().atMost(Duration.ofSeconds(90)).until(() -> rejected(state, "quota-late-1").size()
                    + admitted(state, "quota-late-1").size() == 1);
            assertThat(rejected(state, "quota-late-1")).as("the count survived the rebalance").hasSize(1);
            String finishing = admitted.iterator().next();
            client.trigger(finishing, "run now: frees its slot when it succeeds").join();
            await().atMost(Duration.ofSeconds(60)).until(() -> succeeded(state).contains(finishing));
            client.schedule("quota-late-2").jobType("report").owner("acme").at(due).submit().join();
            await().atMost(Duration.ofSeconds(60)).until(() -> admitted(state, "quota-late-2").size() == 1);
            assertThat(rejected(state, "quota-late-2")).isEmpty();
        } finally {
            if (bRunning) {
                b.close();
            }
        }
    }

    private static Set<String> admitted(TopicRecorder state, String prefix) {
        return state.seen().stream().map(s -> json(s.record().value()))
                .filter(e -> e.get("taskId").asText().startsWith(prefix) && e.path("reason").asText().startsWith("admitted by live:owner:"))
                .map(e -> e.get("taskId").asText()).collect(Collectors.toSet());
    }

    private static List<JsonNode> rejected(TopicRecorder state, String prefix) {
        return state.seen().stream().map(s -> json(s.record().value()))
                .filter(e -> e.get("taskId").asText().startsWith(prefix) && "REJECTED".equals(e.path("to").asText())).toList();
    }

    /** {@code ./ax limits}: set, show, a bad record refused (counted by each instance, the previous value kept), remove. */
    private static void shouldSetShowAndRefuseLimitsFromTheCli(AxScheduler a, AxScheduler b) throws Exception {
        String[] connect = {"--bootstrap", broker.bootstrapServers(), "--topic-prefix", "flow."};
        Cli.Run set = Cli.run(concat(new String[] {"limits", "set", "owner:acme", "--max-in-flight", "3", "--weight", "2"}, connect));
        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat(set.out()).startsWith("limits of owner:acme set to {\"maxInFlight\":3,\"weight\":2}");
        Cli.Run wrongKind = Cli.run(concat(new String[] {"limits", "set", "type:email", "--weight", "2"}, connect));
        assertThat(wrongKind.exitCode()).isEqualTo(2);
        assertThat(wrongKind.err()).contains("a type key takes [maxInFlight, maxPerSecond, burst, maxNotStarted], not weight");
        try (org.apache.kafka.clients.producer.KafkaProducer<String, String> raw = new org.apache.kafka.clients.producer.KafkaProducer<>(
                Map.of("bootstrap.servers", broker.bootstrapServers()), new org.apache.kafka.common.serialization.StringSerializer(),
                new org.apache.kafka.common.serialization.StringSerializer())) {
            raw.send(new org.apache.kafka.clients.producer.ProducerRecord<>("flow.limits", "type:charge-card", "{\"maxInFlight\":0}")).get();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> a.metrics().limitErrors().count() == 1 && b.metrics().limitErrors().count() == 1);
        assertThat(b.limits()).containsEntry("type:charge-card", "{\"maxInFlight\":" + LIMIT + "}")
                .containsEntry("owner:acme", "{\"maxInFlight\":3,\"weight\":2}");
        Cli.Run show = Cli.run(concat(new String[] {"limits", "show", "--json"}, connect));
        assertThat(show.exitCode()).as(show.err()).isZero();
        JsonNode shown = MAPPER.readTree(show.out());
        assertThat(shown.get("limits").get("type:charge-card").get("maxInFlight").asInt()).isEqualTo(LIMIT);
        assertThat(shown.get("refused")).singleElement().satisfies(r -> {
            assertThat(r.get("key").asText()).isEqualTo("type:charge-card");
            assertThat(r.get("reason").asText()).isEqualTo("maxInFlight must be between 1 and 1000000: 0");
        });
        assertThat(Cli.run(concat(new String[] {"limits", "remove", "owner:acme"}, connect)).exitCode()).isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> !a.limits().containsKey("owner:acme") && !b.limits().containsKey("owner:acme"));
    }

    /** TRIGGERED at − dueAt of the tasks whose id starts with {@code prefix}, sorted. */
    private static List<Long> triggeredLateness(TopicRecorder state, String prefix) {
        return state.seen().stream().map(s -> json(s.record().value()))
                .filter(e -> e.get("taskId").asText().startsWith(prefix) && "TRIGGERED".equals(e.path("to").asText()))
                .map(e -> Instant.parse(e.get("at").asText()).toEpochMilli() - Instant.parse(e.get("dueAt").asText()).toEpochMilli())
                .sorted().toList();
    }

    private static String[] concat(String[] first, String[] second) {
        String[] all = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }
}
