package io.ax.app.bench;

import io.ax.AxHeaders;
import io.ax.codec.WireCodec;
import io.ax.schema.DispatchTask;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.function.IntToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The chaos run's verdict, from a full re-read of {@code ax.dispatch} and {@code ax.state} (every partition from the
 * beginning to its last stable offset, {@code read_committed}, as any worker or operator would read them once the
 * run is over), for tasks {@code <prefix><i>}, i below n:
 * <ul>
 *   <li><b>lost</b>: no RUN dispatch of the first attempt;</li>
 *   <li><b>early</b>: a first attempt whose {@code ax-due-at} is not the due time the run asked for, or any RUN whose
 *       {@code firedAtMs} is before its {@code dueAtMs} or whose {@code dueAtMs} differs from its {@code ax-due-at}
 *       (dispatches visible before their due time are counted live by {@link ChaosDispatchLog});</li>
 *   <li><b>dup</b>: RUN dispatches beyond the first of one (executionId, attempt);</li>
 *   <li><b>executions</b>: tasks dispatched under more than one executionId (a one-shot task has one);</li>
 *   <li><b>attemptGaps</b>: tasks whose attempts are not 1..k without a hole;</li>
 *   <li><b>missingRetries</b>: tasks that fail their first attempt on purpose without an attempt 2;</li>
 *   <li><b>notFinal</b>: tasks whose last state on {@code ax.state} (IGNORED, REJECTED, SKIPPED notes aside) is not
 *       SUCCESS; {@code finalStates} counts every last state.</li>
 * </ul>
 */
record ChaosAudit(long runDispatches, long retries, long lost, long early, long dup, long executions, long attemptGaps,
                  long missingRetries, long notFinal, Map<String, Integer> finalStates, long retryWaiting) {
    private static final Pattern TO = Pattern.compile("\"to\":\"([A-Z_]+)\"");
    private static final Set<String> NOTES = Set.of("IGNORED", "REJECTED", "SKIPPED");
    private static final Duration READ_TIMEOUT = Duration.ofMinutes(3);

    /** Reads both topics and checks them. */
    static ChaosAudit read(Map<String, Object> kafka, String dispatchTopic, String stateTopic, TaskKeys keys, int n,
                           IntToLongFunction dueMsOf, IntPredicate failsOnce) {
        Map<String, Integer> seen = new HashMap<>();
        List<Map<Integer, String>> attempts = new ArrayList<>(n); // per task: attempt -> executionId
        for (int i = 0; i < n; i++) {
            attempts.add(new TreeMap<>());
        }
        long[] counters = new long[3]; // runs, early, dup
        readAll(kafka, dispatchTopic, record -> {
            int index = keys.indexOf(record.key(), n);
            if (index < 0 || !"RUN".equals(ChaosDispatchLog.header(record, AxHeaders.KIND))) {
                return;
            }
            counters[0]++;
            DispatchTask task = WireCodec.decodeBinary(record.value(), DispatchTask.class);
            String executionId = ChaosDispatchLog.header(record, AxHeaders.EXECUTION_ID);
            int attempt = Integer.parseInt(ChaosDispatchLog.header(record, AxHeaders.ATTEMPT));
            long headerDueMs = Long.parseLong(ChaosDispatchLog.header(record, AxHeaders.DUE_AT));
            if ((attempt == 1 && headerDueMs != dueMsOf.applyAsLong(index)) || task.getFiredAtMs() < task.getDueAtMs()
                    || task.getDueAtMs() != headerDueMs || task.getAttempt() != attempt
                    || !task.getExecutionId().equals(executionId)) {
                counters[1]++;
            }
            if (seen.merge(executionId + "/" + attempt, 1, Integer::sum) > 1) {
                counters[2]++;
            }
            attempts.get(index).put(attempt, executionId);
        });
        long lost = 0;
        long retries = 0;
        long executions = 0;
        long gaps = 0;
        long missingRetries = 0;
        for (int i = 0; i < n; i++) {
            Map<Integer, String> byAttempt = attempts.get(i);
            if (!byAttempt.containsKey(1)) {
                lost++;
            }
            retries += Math.max(0, byAttempt.size() - 1);
            if (new HashSet<>(byAttempt.values()).size() > 1) {
                executions++;
            }
            if (!byAttempt.isEmpty() && ((TreeMap<Integer, String>) byAttempt).lastKey() != byAttempt.size()) {
                gaps++;
            }
            if (failsOnce.test(i) && !byAttempt.containsKey(2)) {
                missingRetries++;
            }
        }
        String[] last = new String[n];
        long[] retryWaiting = new long[1];
        readAll(kafka, stateTopic, record -> {
            int index = keys.indexOf(record.key(), n);
            if (index < 0 || record.value() == null) {
                return;
            }
            Matcher to = TO.matcher(new String(record.value(), StandardCharsets.UTF_8));
            if (to.find() && !NOTES.contains(to.group(1))) {
                last[index] = to.group(1);
                if (to.group(1).equals("RETRY_WAITING")) {
                    retryWaiting[0]++;
                }
            }
        });
        Map<String, Integer> finalStates = new TreeMap<>();
        long notFinal = 0;
        for (String state : last) {
            finalStates.merge(state == null ? "NONE" : state, 1, Integer::sum);
            if (!"SUCCESS".equals(state)) {
                notFinal++;
            }
        }
        return new ChaosAudit(counters[0], retries, lost, counters[1], counters[2], executions, gaps, missingRetries,
                notFinal, finalStates, retryWaiting[0]);
    }

    /** Hands every committed record of {@code topic}, partition by partition in offset order, to {@code sink}. */
    static void readAll(Map<String, Object> kafka, String topic, Consumer<ConsumerRecord<String, byte[]>> sink) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(readerConfig(kafka),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            // For a read_committed consumer the end offsets are the last stable offsets.
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadlineMs = System.currentTimeMillis() + READ_TIMEOUT.toMillis();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.currentTimeMillis() > deadlineMs) {
                    throw new IllegalStateException("could not read " + topic + " to its end within " + READ_TIMEOUT);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(sink);
            }
        }
    }

    private static Map<String, Object> readerConfig(Map<String, Object> kafka) {
        Map<String, Object> config = new HashMap<>(kafka);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        return config;
    }

    /** {@code SUCCESS:2990,FAILED:10}. */
    String finalStatesText() {
        StringBuilder text = new StringBuilder();
        finalStates.forEach((state, count) -> text.append(text.length() == 0 ? "" : ",").append(state).append(':').append(count));
        return text.toString();
    }
}
