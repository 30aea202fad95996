package io.ax.app.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.AxTopics;
import io.ax.InvalidRequestException;
import io.ax.codec.WireCodec;
import io.ax.schema.AttemptError;
import io.ax.schema.DeadLetter;
import io.ax.schema.DispatchTask;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ax dead-letters}: reads the dead-letter topic from the beginning up to its end as it stands when the command
 * starts, decodes each record (Avro {@code DeadLetter}) and prints the latest {@code --limit} of them, oldest first.
 * A record that does not decode is shown with its coordinates and the reason, never skipped silently.
 */
@Command(name = "dead-letters", mixinStandardHelpOptions = true,
        description = "List the executions that failed for good: task, job type, owner, execution, and every attempt"
                + " with its error. Replay one with: ax replay TASK.")
public final class DeadLettersCommand implements Callable<Integer> {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration POLL = Duration.ofMillis(200);
    /** How the scheduler words a timeout's error, shown once in the readable form. */
    private static final String TIMED_OUT = "timed out: ";

    @Spec
    CommandSpec spec;

    @Option(names = "--task", paramLabel = "T", description = "Only this taskId.")
    String task;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
            description = "Show the latest N (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "One JSON object per dead letter, one per line.")
    boolean json;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    TopicOptions topicOptions;

    /** One record of the topic: decoded, or why not. */
    private record Entry(ConsumerRecord<String, byte[]> record, DeadLetter letter, String error) {
    }

    @Override
    public Integer call() {
        if (limit < 1) {
            throw new ParameterException(spec.commandLine(), "--limit must be at least 1: " + limit);
        }
        Map<String, String> settings = connection.settings(System.getenv());
        AxTopics topics = topicOptions.topics(settings);
        Deque<Entry> latest = new ArrayDeque<>();
        long matched = 0;
        try (KafkaConsumer<String, byte[]> consumer = OperatorClients.consumer(settings, "ax-dead-letters",
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = OperatorClients.partitions(consumer, topics.deadLetter());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions, OperatorClients.KAFKA_TIMEOUT));
            end.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
            while (!end.isEmpty()) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                    if (task == null || task.equals(record.key())) {
                        matched++;
                        latest.addLast(decode(record));
                        if (latest.size() > limit) {
                            latest.removeFirst();
                        }
                    }
                }
                // Under read_committed the end offset may sit past markers of aborted or committed transactions:
                // the position, not the last record, tells when a partition is read to its end.
                end.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
            }
        }
        print(latest, matched);
        return CliErrors.OK;
    }

    private static Entry decode(ConsumerRecord<String, byte[]> record) {
        try {
            return new Entry(record, WireCodec.decodeBinary(record.value(), DeadLetter.class), null);
        } catch (InvalidRequestException e) {
            return new Entry(record, null, e.getMessage());
        }
    }

    private void print(Deque<Entry> entries, long matched) {
        PrintWriter out = spec.commandLine().getOut();
        for (Entry entry : entries) {
            if (json) {
                out.println(toJson(entry));
            } else {
                printReadable(out, entry);
            }
        }
        out.flush();
        if (!json) {
            PrintWriter err = spec.commandLine().getErr();
            err.println(matched == 0 ? "no dead letters" + (task != null ? " for " + task : "")
                    : entries.size() + " of " + matched + " dead letter(s)" + (entries.size() < matched ? " (the latest; see --limit)" : ""));
            err.flush();
        }
    }

    private static void printReadable(PrintWriter out, Entry entry) {
        ConsumerRecord<String, byte[]> record = entry.record();
        String where = "[" + record.topic() + "-" + record.partition() + "@" + record.offset() + "]";
        if (entry.letter() == null) {
            out.println(record.key() + "  (undecodable dead letter " + where + ": " + entry.error() + ")");
            return;
        }
        DeadLetter letter = entry.letter();
        DispatchTask dispatch = letter.getDispatch();
        out.println(dispatch.getTaskId() + "  job type " + dispatch.getJobType() + "  owner "
                + (letter.getOwner() != null ? letter.getOwner() : "-") + "  execution " + dispatch.getExecutionId()
                + "  failed " + Instant.ofEpochMilli(letter.getFailedAtMs()) + " after " + dispatch.getAttempt()
                + " attempt(s) " + where);
        out.println("    why: " + letter.getReason());
        for (AttemptError error : letter.getErrors()) {
            String message = error.getMessage() != null ? error.getMessage() : "";
            if (error.getTimedOut() && message.startsWith(TIMED_OUT)) {
                message = message.substring(TIMED_OUT.length());
            }
            out.println("    attempt " + error.getAttempt() + "  " + Instant.ofEpochMilli(error.getAtMs()) + "  "
                    + (error.getTimedOut() ? "timed out" : error.getRetryable() ? "retryable" : "not retryable") + "  "
                    + message);
        }
    }

    private static ObjectNode toJson(Entry entry) {
        ConsumerRecord<String, byte[]> record = entry.record();
        ObjectNode node = MAPPER.createObjectNode().put("taskId", record.key()).put("partition", record.partition())
                .put("offset", record.offset());
        if (entry.letter() == null) {
            return node.put("error", entry.error());
        }
        DeadLetter letter = entry.letter();
        DispatchTask dispatch = letter.getDispatch();
        node.put("jobType", dispatch.getJobType())
                .put("owner", letter.getOwner())
                .put("executionId", dispatch.getExecutionId())
                .put("attempt", dispatch.getAttempt())
                .put("dueAt", Instant.ofEpochMilli(dispatch.getDueAtMs()).toString())
                .put("failedAt", Instant.ofEpochMilli(letter.getFailedAtMs()).toString())
                .put("reason", letter.getReason())
                .put("priority", dispatch.getPriority());
        ArrayNode errors = node.putArray("errors");
        for (AttemptError error : letter.getErrors()) {
            errors.addObject().put("attempt", error.getAttempt()).put("at", Instant.ofEpochMilli(error.getAtMs()).toString())
                    .put("timedOut", error.getTimedOut()).put("retryable", error.getRetryable()).put("message", error.getMessage());
        }
        putPayload(node, dispatch.getPayload());
        return node;
    }

    /** The payload as text when it is UTF-8 (a JSON request's always is), else as base64 in {@code payloadBase64}. */
    private static void putPayload(ObjectNode node, ByteBuffer payload) {
        if (payload == null) {
            return;
        }
        byte[] bytes = new byte[payload.remaining()];
        payload.duplicate().get(bytes);
        try {
            node.put("payload", StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            node.put("payloadBase64", java.util.Base64.getEncoder().encodeToString(bytes));
        }
    }
}
