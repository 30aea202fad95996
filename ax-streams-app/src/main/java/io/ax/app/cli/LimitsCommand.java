package io.ax.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.AxTopics;
import io.ax.FlowLimit;
import io.ax.InvalidRequestException;
import io.ax.client.AxClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ax limits set|remove|show}: the flow-control limits on the compacted limits topic (topology-docs/FLOW-CONTROL.md).
 * {@code show} reads the topic itself and folds it as the schedulers do (a bad record leaves the key's previous limits),
 * so it works without a scheduler and lists the refused records with their offsets.
 */
@Command(name = "limits", mixinStandardHelpOptions = true,
        description = "Flow-control limits: cluster-wide per job type (type:<jobType>: --max-in-flight, --max-per-second [--burst],"
                + " --max-not-started) and per owner (owner:<owner>, or owner:* for every owner: --max-in-flight, --max-per-second [--burst],"
                + " --weight, --max-live-tasks).",
        subcommands = {LimitsCommand.Set.class, LimitsCommand.Remove.class, LimitsCommand.Show.class})
public final class LimitsCommand {

    /** {@code ax limits set KEY ...}. */
    @Command(name = "set", mixinStandardHelpOptions = true,
            description = "Set the limits of KEY (replacing its previous ones as a whole): every scheduler applies them at once.")
    static final class Set implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", paramLabel = "KEY", description = "type:<jobType>, owner:<owner> or owner:*.")
        String key;
        @Option(names = "--max-in-flight", paramLabel = "N", description = "Executions dispatched and not ended, across the fleet.")
        Integer maxInFlight;
        @Option(names = "--max-per-second", paramLabel = "R", description = "Dispatches per second, across the fleet (type and owner keys).")
        Double maxPerSecond;
        @Option(names = "--burst", paramLabel = "N",
                description = "With --max-per-second: dispatches that may go at once after a quiet spell (default: 100 ms of the rate, at least 1).")
        Integer burst;
        @Option(names = "--max-not-started", paramLabel = "N",
                description = "Dispatches not yet STARTED by a worker before further ones wait (type keys: backpressure).")
        Integer maxNotStarted;
        @Option(names = "--weight", paramLabel = "W", description = "The owner's share at a busy type gate, 1-1000 (owner keys).")
        Integer weight;
        @Option(names = "--max-live-tasks", paramLabel = "N",
                description = "The owner's live tasks admitted at once (owner keys): a new task over it is REJECTED.")
        Integer maxLiveTasks;
        @Mixin
        ConnectionOptions connection;
        @Mixin
        TopicOptions topicOptions;

        @Override
        public Integer call() throws Exception {
            FlowLimit limit = new FlowLimit(maxInFlight, maxPerSecond, maxNotStarted, weight, maxLiveTasks, burst);
            Map<String, String> settings = connection.settings(System.getenv());
            try (AxClient client = OperatorClients.client(settings, topicOptions.topics(settings), "ax-limits")) {
                RecordMetadata sent = client.setLimit(key, limit).get();
                spec.commandLine().getOut().println("limits of " + key + " set to " + limit.toJson() + ": " + sent.topic() + "-"
                        + sent.partition() + "@" + sent.offset());
            }
            return CliErrors.OK;
        }
    }

    /** {@code ax limits remove KEY}. */
    @Command(name = "remove", mixinStandardHelpOptions = true, description = "Remove every limit of KEY (a tombstone).")
    static final class Remove implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Parameters(index = "0", paramLabel = "KEY", description = "type:<jobType>, owner:<owner> or owner:*.")
        String key;
        @Mixin
        ConnectionOptions connection;
        @Mixin
        TopicOptions topicOptions;

        @Override
        public Integer call() throws Exception {
            Map<String, String> settings = connection.settings(System.getenv());
            try (AxClient client = OperatorClients.client(settings, topicOptions.topics(settings), "ax-limits")) {
                RecordMetadata sent = client.removeLimit(key).get();
                spec.commandLine().getOut().println("limits of " + key + " removed: " + sent.topic() + "-" + sent.partition() + "@"
                        + sent.offset());
            }
            return CliErrors.OK;
        }
    }

    /** {@code ax limits show}. */
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "Print the limits in force (read from the limits topic) and the records the schedulers refuse.")
    static final class Show implements Callable<Integer> {
        private static final ObjectMapper MAPPER = new ObjectMapper();
        @Spec
        CommandSpec spec;
        @Option(names = "--json", description = "Print one JSON object.")
        boolean json;
        @Mixin
        ConnectionOptions connection;
        @Mixin
        TopicOptions topicOptions;

        @Override
        public Integer call() {
            Map<String, String> settings = connection.settings(System.getenv());
            AxTopics topics = topicOptions.topics(settings);
            Map<String, FlowLimit> limits = new TreeMap<>();
            ArrayNode refused = MAPPER.createArrayNode();
            try (KafkaConsumer<String, byte[]> consumer = OperatorClients.consumer(settings, "ax-limits-show", new ByteArrayDeserializer())) {
                List<TopicPartition> partitions = OperatorClients.partitions(consumer, topics.limits());
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, OperatorClients.KAFKA_TIMEOUT);
                long deadline = System.currentTimeMillis() + OperatorClients.KAFKA_TIMEOUT.toMillis();
                while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                    if (System.currentTimeMillis() > deadline) {
                        throw new CommandFailedException("could not read " + topics.limits() + " to its end within "
                                + OperatorClients.KAFKA_TIMEOUT.toSeconds() + " s");
                    }
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                        fold(record, limits, refused);
                    }
                }
            }
            print(spec.commandLine().getOut(), limits, refused);
            return CliErrors.OK;
        }

        private static void fold(ConsumerRecord<String, byte[]> record, Map<String, FlowLimit> limits, ArrayNode refused) {
            try {
                if (record.value() == null) {
                    FlowLimit.validateKey(record.key());
                    limits.remove(record.key());
                } else {
                    limits.put(record.key(), FlowLimit.parse(record.key(), record.value()));
                }
            } catch (InvalidRequestException e) {
                refused.addObject().put("key", String.valueOf(record.key())).put("partition", record.partition())
                        .put("offset", record.offset()).put("reason", e.getMessage());
            }
        }

        private void print(PrintWriter out, Map<String, FlowLimit> limits, ArrayNode refused) {
            if (json) {
                ObjectNode all = MAPPER.createObjectNode();
                ObjectNode inForce = all.putObject("limits");
                limits.forEach((key, limit) -> {
                    try {
                        inForce.set(key, MAPPER.readTree(limit.toJson()));
                    } catch (java.io.IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                all.set("refused", refused);
                out.println(all);
                return;
            }
            if (limits.isEmpty()) {
                out.println("no limits: every job type and owner is dispatched as soon as it is due");
            }
            limits.forEach((key, limit) -> out.println(key + " " + limit.toJson()));
            refused.forEach(r -> out.println("refused " + r.get("key").asText() + " at offset " + r.get("partition").asInt() + "@"
                    + r.get("offset").asLong() + ": " + r.get("reason").asText()));
        }
    }
}
