package io.ax.app.fuzz;

import static org.awaitility.Awaitility.await;

import io.ax.AxHeaders;
import io.ax.AxTopics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The broker fuzz level: hostile inputs sent to a running scheduler through a real broker, each followed at once by a
 * canary request ({@code {"jobType":"canary","delayMs":0}}, fresh taskId) on the same partition, then one wait for
 * everything to be answered. Nothing waits between inputs, so a record that stalls its partition holds back every
 * canary behind it. A live input ({@link LiveTarget}) sends its setup request first; its reports go out from the
 * output reader when the dispatches they answer appear.
 *
 * <p>The oracle per input: exactly one answer (see {@link AnswerLedger}), a due time no earlier than asked
 * ({@link ExpectedDue}), every canary sent after it PENDING then dispatched, and every output under the size bound.
 */
final class BrokerFuzzRun implements AutoCloseable {
    private static final byte[] CANARY = "{\"jobType\":\"canary\",\"delayMs\":0}".getBytes(StandardCharsets.UTF_8);
    /** Inputs go up to ~20 MB (a million Long.MAX_VALUE in JSON); the broker of the fuzz level accepts them. */
    static final int MAX_INPUT_BYTES = 32 << 20;

    /** One input as sent, with what the oracle needs to judge it. */
    private static final class Sent {
        final HostileInput input;
        final int n;
        final int partition;
        final byte[] key;
        final String taskId;
        final CompletableFuture<RecordMetadata> at;
        final List<CompletableFuture<RecordMetadata>> liveSends = new CopyOnWriteArrayList<>();
        final Set<Integer> liveAttemptsSent = ConcurrentHashMap.newKeySet();
        final List<String> canaries = new CopyOnWriteArrayList<>();
        final List<String> outputProblems = new CopyOnWriteArrayList<>();

        Sent(HostileInput input, int n, int partition, byte[] key, CompletableFuture<RecordMetadata> at) {
            this.input = input;
            this.n = n;
            this.partition = partition;
            this.key = key;
            this.taskId = key == null ? null : new String(key, StandardCharsets.UTF_8);
            this.at = at;
        }
    }

    private final AxTopics topics;
    private final KeyPlacer keys;
    private final FuzzFigures figures;
    private final AnswerLedger ledger;
    private final KafkaProducer<byte[], byte[]> producer;
    private final OutputRecorder recorder;
    private final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final Map<String, Sent> byTaskId = new ConcurrentHashMap<>();
    private final List<String> unattributed = new CopyOnWriteArrayList<>();

    BrokerFuzzRun(String bootstrap, AxTopics topics, int partitions, FuzzFigures figures) {
        this.topics = topics;
        this.keys = new KeyPlacer(partitions);
        this.figures = figures;
        this.ledger = new AnswerLedger(topics);
        this.producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_INPUT_BYTES + (1 << 20),
                ProducerConfig.BUFFER_MEMORY_CONFIG, 4L * MAX_INPUT_BYTES),
                new ByteArraySerializer(), new ByteArraySerializer());
        this.recorder = new OutputRecorder(bootstrap, topics, this::onOutput);
    }

    /** Sends the n-th input (for a live one, its setup request) to partition {@code n mod partitions}, then a canary there. */
    void send(HostileInput input, int n) {
        int partition = n % keys.partitions();
        byte[] key = keys.keyFor(input, "n" + n, partition);
        Sent entry;
        if (input.live() == null) {
            entry = new Sent(input, n, partition, key, produce(input.topic(), partition, input.timestampMs(), key, input.valueFor(key)));
        } else {
            entry = new Sent(input, n, partition, key, produce(FuzzTopic.REQUESTS, partition, null, key,
                    input.live().setupRequest().getBytes(StandardCharsets.UTF_8)));
        }
        sent.add(entry);
        if (entry.taskId != null) {
            byTaskId.putIfAbsent(entry.taskId, entry);
        }
        sendCanary(entry);
    }

    private void sendCanary(Sent after) {
        String key = keys.keyOn("canary-" + after.n + "-" + after.canaries.size(), after.partition);
        after.canaries.add(key);
        produce(FuzzTopic.REQUESTS, after.partition, null, key.getBytes(StandardCharsets.UTF_8), CANARY);
    }

    private CompletableFuture<RecordMetadata> produce(FuzzTopic topic, int partition, Long timestampMs, byte[] key, byte[] value) {
        CompletableFuture<RecordMetadata> at = new CompletableFuture<>();
        Headers mark = new RecordHeaders().add(OutputRecorder.INPUT_HEADER, new byte[] {1});
        producer.send(new ProducerRecord<>(topic.name(topics), partition, timestampMs, key, value, mark), (metadata, error) -> {
            if (error != null) {
                at.completeExceptionally(error);
            } else {
                at.complete(metadata);
            }
        });
        return at;
    }

    private static Coordinates coordinates(RecordMetadata metadata) {
        return new Coordinates(metadata.topic(), metadata.partition(), metadata.offset());
    }

    /** On the recorder's thread: files each output, and answers the dispatches of live inputs with their reports. */
    private void onOutput(Output output) {
        String problem = ledger.add(output);
        Sent owner = output.key() == null ? null : byTaskId.get(output.keyText());
        if (problem != null) {
            if (owner != null) {
                owner.outputProblems.add(problem);
            } else {
                unattributed.add(problem);
            }
        }
        if (owner != null && owner.input.live() != null && output.topic().equals(topics.dispatch())) {
            maybeSendLive(owner, output);
        }
    }

    private void maybeSendLive(Sent live, Output dispatch) {
        String attemptText = dispatch.header(AxHeaders.ATTEMPT);
        int attempt = attemptText == null ? -1 : Integer.parseInt(attemptText);
        if (!"RUN".equals(dispatch.header(AxHeaders.KIND)) || attempt < 1 || attempt > live.input.live().attempts()
                || !live.liveAttemptsSent.add(attempt)) {
            return;
        }
        byte[] value = LiveTarget.render(live.input.value(), dispatch.header(AxHeaders.EXECUTION_ID), attempt);
        live.liveSends.add(produce(live.input.topic(), live.partition, null, live.key, value));
        sendCanary(live);
    }

    /**
     * Waits until every canary fired and every input has its answer; gives up early when no output arrived for
     * {@code stallWindow} (a stalled scheduler commits nothing), and at {@code atMost}. What is missing then is
     * reported input by input by {@link #judge}.
     */
    void awaitAnswers(Duration atMost, Duration stallWindow) {
        producer.flush();
        long[] seen = {-1, System.nanoTime()};
        try {
            // a failing stream thread is what this level looks for: report it input by input, not as this wait's error
            await().dontCatchUncaughtExceptions().atMost(atMost).pollInterval(Duration.ofMillis(250)).until(() -> {
                long outputs = ledger.outputs();
                if (outputs != seen[0]) {
                    seen[0] = outputs;
                    seen[1] = System.nanoTime();
                }
                return allAnswered() || System.nanoTime() - seen[1] > stallWindow.toNanos();
            });
        } catch (ConditionTimeoutException e) {
            // judged below, input by input
        }
    }

    private boolean allAnswered() {
        for (Sent entry : sent) {
            if (!entry.canaries.stream().allMatch(ledger::canaryFired) || !answered(entry)) {
                return false;
            }
        }
        return true;
    }

    private boolean answered(Sent entry) {
        if (entry.input.live() != null) {
            int sends = entry.liveSends.size();
            List<String> events = ledger.eventsFor(entry.taskId);
            boolean waitingForRetry = !events.isEmpty() && events.get(events.size() - 1).equals("RETRY_WAITING");
            return sends > 0 && liveAnswers(entry) >= sends && (sends == entry.input.live().attempts() || !waitingForRetry);
        }
        RecordMetadata at = entry.at.getNow(null);
        return at != null && !ledger.answersFor(coordinates(at), entry.taskId).isEmpty();
    }

    private long liveAnswers(Sent entry) {
        long sourced = entry.liveSends.stream().map(f -> f.getNow(null)).filter(m -> m != null)
                .mapToLong(m -> ledger.answersFor(coordinates(m)).size()).sum();
        return sourced + ledger.liveOutcomes(entry.taskId);
    }

    /**
     * Judges every input into {@code failures}, fills the figures, and returns what concerns no single input: the
     * stalled partitions (with the first broken input on each) and outputs no input can be blamed for.
     */
    String judge(FuzzFailures failures) {
        Map<Integer, String> stalled = new TreeMap<>();
        Map<Integer, String> firstUnanswered = new TreeMap<>();
        long canariesFired = 0;
        for (Sent entry : sent) {
            List<String> problems = new ArrayList<>(entry.outputProblems);
            List<String> answers = entry.input.live() == null ? judgePlain(entry, problems) : judgeLive(entry, problems);
            if (answers.isEmpty()) {
                firstUnanswered.putIfAbsent(entry.partition, describe(entry));
            }
            for (String canary : entry.canaries) {
                if (ledger.canaryFired(canary)) {
                    canariesFired++;
                } else {
                    problems.add("the canary " + canary + " sent after it on partition " + entry.partition
                            + " was not PENDING then dispatched (its events: " + ledger.eventsFor(canary) + ")");
                    stalled.putIfAbsent(entry.partition, describe(entry));
                }
            }
            figures.tried(entry.input, answers, !problems.isEmpty(), 0);
            if (!problems.isEmpty()) {
                failures.add(entry.input, entry.input.generatedIndex(), problems);
            }
        }
        figures.canaries(canaries(), canariesFired);
        figures.partitions(keys.partitions(), stalled.size());
        figures.absorb(ledger);
        StringBuilder summary = new StringBuilder();
        stalled.forEach((partition, first) -> summary.append("\npartition ").append(partition)
                .append(" stalled: its first canary not dispatched came after ").append(first)
                .append("; its first input without an answer: ").append(firstUnanswered.getOrDefault(partition, "none")));
        if (!stalled.isEmpty()) {
            // partitions share stream threads: one record that kills a thread stalls every partition the thread owns
            summary.append("\n(one record can stall every partition of its stream thread: the scheduler's log names it)");
        }
        unattributed.forEach(problem -> summary.append("\nan output no input can be blamed for: ").append(problem));
        return summary.toString();
    }

    private static String describe(Sent entry) {
        RecordMetadata at = entry.at.getNow(null);
        return entry.input.origin() + " [" + entry.input.kind() + "] at " + (at == null ? "?" : coordinates(at));
    }

    private long canaries() {
        return sent.stream().mapToLong(entry -> entry.canaries.size()).sum();
    }

    private List<String> judgePlain(Sent entry, List<String> problems) {
        Optional<RecordMetadata> metadata = delivered(entry.at, problems);
        if (metadata.isEmpty()) {
            return List.of();
        }
        Coordinates at = coordinates(metadata.get());
        List<String> answers = ledger.answersFor(at, entry.taskId);
        if (answers.size() != 1) {
            problems.add(answers.isEmpty() ? "no answer: no ax.state event with source " + at + " and no quarantine record"
                    : "answered " + answers.size() + " times: " + answers + " (source " + at + ")");
        }
        if (entry.taskId != null) {
            ExpectedDue.of(entry.input, metadata.get().timestamp())
                    .ifPresent(due -> problems.addAll(ExpectedDue.problems(ledger, entry.taskId, due)));
        }
        return answers;
    }

    private List<String> judgeLive(Sent entry, List<String> problems) {
        delivered(entry.at, problems);
        List<String> answers = new ArrayList<>();
        for (CompletableFuture<RecordMetadata> send : entry.liveSends) {
            delivered(send, problems).ifPresent(m -> answers.addAll(ledger.answersFor(coordinates(m))));
        }
        List<String> events = ledger.eventsFor(entry.taskId);
        events.stream().filter(to -> !to.equals("PENDING") && !to.equals("TRIGGERED")).forEach(answers::add);
        if (entry.liveSends.isEmpty()) {
            problems.add("live setup: the task was never dispatched, so nothing was sent (its events: " + events + ")");
        } else if (answers.size() < entry.liveSends.size()) {
            problems.add(entry.liveSends.size() + " live sends, " + answers.size() + " answers " + answers + " (events " + events + ")");
        }
        return answers;
    }

    private static Optional<RecordMetadata> delivered(CompletableFuture<RecordMetadata> send, List<String> problems) {
        try {
            if (!send.isDone()) {
                problems.add("the producer never acknowledged it");
                return Optional.empty();
            }
            return Optional.of(send.get());
        } catch (ExecutionException e) {
            problems.add("the embedded broker refused it (a test setup problem, not the scheduler's): " + e.getCause());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
        recorder.close();
    }
}
