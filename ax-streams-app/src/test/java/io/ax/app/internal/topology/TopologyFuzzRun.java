package io.ax.app.internal.topology;

import io.ax.AxTopics;
import io.ax.app.fuzz.AnswerLedger;
import io.ax.app.fuzz.Coordinates;
import io.ax.app.fuzz.ExpectedDue;
import io.ax.app.fuzz.FuzzFigures;
import io.ax.app.fuzz.FuzzTopic;
import io.ax.app.fuzz.HostileInput;
import io.ax.app.fuzz.KeyPlacer;
import io.ax.app.fuzz.LiveTarget;
import io.ax.app.fuzz.Output;
import io.ax.app.fuzz.Quarantine;
import java.lang.management.ManagementFactory;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The fast fuzz level: hostile inputs through the scheduler topology in a {@link SchedulerHarness}. A
 * TopologyTestDriver runs the processor on the calling thread and lets its exceptions out of {@code pipeInput}, so
 * the oracle per input is: no exception; exactly one answer ({@link AnswerLedger}); memory allocated while
 * processing it bounded ({@link #allocationBound}); every output under the size bound; and then a canary request
 * on the same partition that is PENDING at once and dispatched one tick later.
 *
 * <p>After an input that broke something the driver is replaced by a fresh one, so one failure does not cascade
 * into the inputs after it.
 */
final class TopologyFuzzRun implements AutoCloseable {
    /** The driver feeds partition 0; telling the scheduler there are two makes keys of another partition possible. */
    static final int PARTITIONS = 2;
    private static final long TICK_MS = 10;
    private static final byte[] CANARY = "{\"jobType\":\"canary\",\"delayMs\":0}".getBytes(StandardCharsets.UTF_8);
    /**
     * Guarantee 6 says work and memory per record are bounded before anything is allocated. Decoding, validating and
     * answering one record may allocate some multiple of its size, never gigabytes for a 33-byte record: allow
     * 64 MB plus 32 bytes per input byte.
     */
    static final long ALLOCATION_BASE_BYTES = 64L << 20;
    static final long ALLOCATION_PER_INPUT_BYTE = 32;

    private final Path stateRoot;
    private final FuzzFigures figures;
    private final KeyPlacer keys = new KeyPlacer(PARTITIONS);
    private final Map<String, Long> nextOffsets = new HashMap<>();
    private SchedulerHarness harness;
    private AxTopics topics;
    private AnswerLedger ledger;
    private int drivers;
    private int serial;
    private Optional<BigInteger> expectedDue = Optional.empty();
    private String expectedDueTaskId;
    private long canariesSent;
    private long canariesFired;

    TopologyFuzzRun(Path stateRoot, FuzzFigures figures) {
        this.stateRoot = stateRoot;
        this.figures = figures;
        startDriver();
    }

    private void startDriver() {
        harness = new SchedulerHarness(stateRoot.resolve("driver-" + (++drivers)), Map.of(), PARTITIONS);
        topics = harness.topics;
        ledger = new AnswerLedger(topics);
        nextOffsets.clear();
    }

    /** Continues on a fresh driver with empty stores: each corpus entry replays alone, as it was found. */
    void replaceDriver() {
        try {
            harness.close();
        } catch (RuntimeException e) {
            // the driver broke already; its replacement is what matters
        }
        figures.absorb(ledger);
        startDriver();
    }

    static long allocationBound(HostileInput input) {
        return ALLOCATION_BASE_BYTES + ALLOCATION_PER_INPUT_BYTE * input.sizeBytes();
    }

    /** Sends one input (or, for a live one, its setup and reports) and a canary; returns what broke, empty if nothing. */
    List<String> run(HostileInput input) {
        List<String> problems = new ArrayList<>();
        List<String> answers = new ArrayList<>();
        long startedNanos = System.nanoTime();
        String unique = Integer.toString(++serial);
        expectedDue = Optional.empty();
        byte[] key = keys.keyFor(input, unique, 0);
        try {
            if (input.live() == null) {
                sendAndExpectOneAnswer(input, key, problems, answers);
            } else {
                sendLive(input, key, problems, answers);
            }
            fireCanary(unique, problems);
            maybeCheckDueTime(problems);
            maybeCheckStoredTask(key, problems);
        } catch (RuntimeException | Error e) {
            problems.add("the fuzz driver failed: " + describe(e));
        }
        figures.tried(input, answers, !problems.isEmpty(), System.nanoTime() - startedNanos);
        if (!problems.isEmpty()) {
            replaceDriver();
        }
        return problems;
    }

    private void sendAndExpectOneAnswer(HostileInput input, byte[] key, List<String> problems, List<String> answers) {
        long timestampMs = input.timestampMs() == null ? harness.nowMs() : input.timestampMs();
        Coordinates at = send(input, input.topic(), key, input.valueFor(key), timestampMs, problems);
        String taskId = key == null ? null : new String(key, StandardCharsets.UTF_8);
        answers.addAll(ledger.answersFor(at, taskId));
        if (answers.size() != 1) {
            problems.add(answers.isEmpty() ? "no answer: no ax.state event with source " + at + " and no quarantine record"
                    : "answered " + answers.size() + " times: " + answers + " (source " + at + ")");
        }
        if (answers.contains(AnswerLedger.QUARANTINED)) {
            problems.add("quarantined: an exception escaped the processor (source " + at + "); only validation may answer");
        }
        expectedDue = ExpectedDue.of(input, timestampMs);
        expectedDueTaskId = taskId;
    }

    /**
     * The task store is changelogged: its record for a task is an output too, and must stay under the same bound
     * (a larger one fails the changelog write, and with it the partition).
     */
    private void maybeCheckStoredTask(byte[] key, List<String> problems) {
        if (key == null) {
            return;
        }
        String taskId = new String(key, StandardCharsets.UTF_8);
        long bytes = harness.storedTaskBytes(taskId);
        if (bytes >= AnswerLedger.MAX_OUTPUT_BYTES) {
            problems.add("stores a " + bytes + "-byte task record (key + value) for " + (taskId.length() <= 80 ? taskId
                    : taskId.substring(0, 40) + "...") + ": its changelog record is an output too (bound " + AnswerLedger.MAX_OUTPUT_BYTES + ")");
        }
    }

    /** A valid request's task must be due, and dispatched, no earlier than it asked for (checked after the canary's tick). */
    private void maybeCheckDueTime(List<String> problems) {
        if (expectedDue.isPresent() && expectedDueTaskId != null) {
            problems.addAll(ExpectedDue.problems(ledger, expectedDueTaskId, expectedDue.get()));
        }
    }

    /** Sets up the live execution, then sends the input for each attempt dispatched; each send must get an answer. */
    private void sendLive(HostileInput input, byte[] key, List<String> problems, List<String> answers) {
        LiveTarget live = input.live();
        String taskId = new String(key, StandardCharsets.UTF_8);
        send(input, FuzzTopic.REQUESTS, key, live.setupRequest().getBytes(StandardCharsets.UTF_8), harness.nowMs(), problems);
        advanceOneTick(problems);
        for (int attempt = 1; attempt <= live.attempts(); attempt++) {
            Optional<AnswerLedger.Dispatch> dispatch = runDispatch(taskId, attempt);
            if (dispatch.isEmpty()) {
                if (attempt == 1) {
                    problems.add("live setup: the task was not dispatched (events " + ledger.eventsFor(taskId) + ")");
                }
                return;
            }
            int eventsBefore = ledger.eventsFor(taskId).size();
            Coordinates at = send(input, input.topic(), key, LiveTarget.render(input.value(), dispatch.get().executionId(), attempt),
                    harness.nowMs(), problems);
            List<String> outcomes = new ArrayList<>(ledger.answersFor(at));
            List<String> events = ledger.eventsFor(taskId);
            events.subList(eventsBefore, events.size()).stream().filter(to -> !to.equals("TRIGGERED")).forEach(outcomes::add);
            if (outcomes.isEmpty()) {
                problems.add("live send for attempt " + attempt + " (" + at + ") got no answer on ax.state");
            }
            answers.addAll(outcomes);
            advanceOneTick(problems);
            advanceOneTick(problems);
        }
    }

    private Optional<AnswerLedger.Dispatch> runDispatch(String taskId, int attempt) {
        return ledger.dispatchesFor(taskId).stream().filter(d -> "RUN".equals(d.kind()) && d.attempt() == attempt).findFirst();
    }

    private void fireCanary(String unique, List<String> problems) {
        String key = keys.keyOn("canary-" + unique, 0);
        canariesSent++;
        send(null, FuzzTopic.REQUESTS, key.getBytes(StandardCharsets.UTF_8), CANARY, harness.nowMs(), problems);
        advanceOneTick(problems);
        if (ledger.canaryFired(key)) {
            canariesFired++;
        } else {
            problems.add("the canary " + key + " sent after it was not PENDING then dispatched within one tick (its events: "
                    + ledger.eventsFor(key) + ")");
        }
    }

    /** Pipes one record; records what it threw, what it allocated over the bound, and every output it caused. */
    private Coordinates send(HostileInput input, FuzzTopic topic, byte[] key, byte[] value, long timestampMs, List<String> problems) {
        String name = topic.name(topics);
        Coordinates at = new Coordinates(name, 0, takeOffset(name));
        long before = allocatedBytes();
        try {
            harness.pipeRaw(name, key, value, timestampMs);
        } catch (RuntimeException | Error e) { // OutOfMemoryError included: no record may get that far
            problems.add("pipeInput threw " + describe(e) + " (record " + at + ")");
        }
        long allocated = allocatedBytes() - before;
        if (input != null) {
            figures.allocation(allocated);
            long bound = allocationBound(input);
            if (allocated > bound) {
                problems.add(String.format("allocated %.1f MB processing one record of %d bytes (bound %.1f MB: memory per record"
                        + " must be bounded before it is allocated)", allocated / 1e6, input.sizeBytes(), bound / 1e6));
            }
        }
        drainOutputs(problems);
        return at;
    }

    private void advanceOneTick(List<String> problems) {
        try {
            harness.advanceMs(TICK_MS);
        } catch (RuntimeException | Error e) {
            problems.add("the wall-clock punctuation threw " + describe(e));
        }
        drainOutputs(problems);
    }

    private long takeOffset(String topic) {
        return nextOffsets.merge(topic, 1L, Long::sum) - 1;
    }

    /** Reads every output; the driver pipes the scheduler's own ax.retry records back in, so they take offsets there too. */
    private void drainOutputs(List<String> problems) {
        for (String topic : List.of(topics.state(), topics.dispatch(), topics.retry(), topics.deadLetter(), Quarantine.topic(topics))) {
            for (TestRecord<byte[], byte[]> record : harness.drainRaw(topic)) {
                if (topic.equals(topics.retry())) {
                    takeOffset(topic);
                }
                String problem = ledger.add(new Output(topic, record.key(), record.value(), record.headers(), record.timestamp()));
                if (problem != null) {
                    problems.add(problem);
                }
            }
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    static String describe(Throwable e) {
        StringBuilder text = new StringBuilder(e.getClass().getName()).append(": ").append(shorten(e.getMessage()));
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if (root != e) {
            text.append(" (root cause ").append(root.getClass().getName()).append(": ").append(shorten(root.getMessage())).append(')');
        }
        return text.toString();
    }

    private static String shorten(String message) {
        if (message == null) {
            return "";
        }
        return message.length() <= 300 ? message : message.substring(0, 300) + "...(" + message.length() + " chars)";
    }

    @Override
    public void close() {
        figures.absorb(ledger);
        figures.canaries(canariesSent, canariesFired);
        figures.partitions(1, canariesFired == canariesSent ? 0 : 1);
        harness.close();
    }
}
