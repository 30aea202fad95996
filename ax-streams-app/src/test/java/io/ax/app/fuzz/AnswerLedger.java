package io.ax.app.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxHeaders;
import io.ax.AxTopics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything the scheduler wrote, indexed the way the fuzz oracle asks: answers by the coordinates of the input
 * they answer ({@code source} of an ax.state event, or a quarantine record's headers), events without a source by
 * key (PENDING of a valid request, transitions of a live execution), dispatches by key, and every output over
 * {@link #MAX_OUTPUT_BYTES}. Thread-safe: the broker level adds from its consumer thread.
 */
public final class AnswerLedger {
    /** Every output record (key + value) must stay under this: Kafka's default max.request.size is 1 MiB. */
    public static final long MAX_OUTPUT_BYTES = 1_000_000;
    public static final String QUARANTINED = "QUARANTINED";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** One dispatch as its headers tell it, with its record timestamp (the scheduler's clock when it fired). */
    public record Dispatch(String executionId, int attempt, String kind, long timestampMs) {
    }

    private final AxTopics topics;
    private final String quarantineTopic;
    private final Map<Coordinates, List<String>> bySource = new ConcurrentHashMap<>();
    private final Map<String, List<String>> unsourcedByKey = new ConcurrentHashMap<>();
    private final Map<String, List<Dispatch>> dispatchesByKey = new ConcurrentHashMap<>();
    private final Map<String, String> firstPendingDueAt = new ConcurrentHashMap<>();
    private final List<String> oversized = new CopyOnWriteArrayList<>();
    private final AtomicLong largest = new AtomicLong();
    private volatile String largestWhere = "none";
    private final AtomicLong outputs = new AtomicLong();

    public AnswerLedger(AxTopics topics) {
        this.topics = topics;
        this.quarantineTopic = Quarantine.topic(topics);
    }

    /** The topics whose records must stay under {@link #MAX_OUTPUT_BYTES}. */
    public Set<String> boundedTopics() {
        return Set.of(topics.state(), topics.dispatch(), topics.retry(), topics.deadLetter());
    }

    /** Records one output; returns a problem when it breaks the size bound or cannot be read, else null. */
    public String add(Output output) {
        outputs.incrementAndGet();
        String problem = null;
        if (boundedTopics().contains(output.topic())) {
            problem = checkSize(output);
        }
        if (output.topic().equals(topics.state())) {
            String unreadableProblem = recordStateEvent(output);
            problem = problem == null ? unreadableProblem : problem;
        } else if (output.topic().equals(topics.dispatch())) {
            dispatchesByKey.computeIfAbsent(output.keyText(), k -> new CopyOnWriteArrayList<>()).add(new Dispatch(
                    output.header(AxHeaders.EXECUTION_ID), parseInt(output.header(AxHeaders.ATTEMPT)), output.header(AxHeaders.KIND),
                    output.timestampMs()));
        } else if (output.topic().equals(quarantineTopic)) {
            Optional<Coordinates> quarantined = Quarantine.coordinates(output.headers());
            if (quarantined.isPresent()) {
                bySource.computeIfAbsent(quarantined.get(), k -> new CopyOnWriteArrayList<>()).add(QUARANTINED);
            } else {
                problem = "wrote a quarantine record without the topic/partition/offset headers of the record it stands for, key "
                        + describeKey(output);
            }
        }
        return problem;
    }

    private String checkSize(Output output) {
        long size = output.sizeBytes();
        if (size > largest.get()) {
            largest.set(size);
            largestWhere = output.topic();
        }
        if (size < MAX_OUTPUT_BYTES) {
            return null;
        }
        String problem = "wrote a " + size + "-byte record (key + value) to " + output.topic() + ", key " + describeKey(output)
                + " (bound " + MAX_OUTPUT_BYTES + ")";
        oversized.add(problem);
        return problem;
    }

    private String recordStateEvent(Output output) {
        JsonNode event;
        try {
            event = MAPPER.readTree(output.value());
        } catch (IOException | RuntimeException e) {
            return "wrote an ax.state record that is not JSON, key " + describeKey(output) + ": " + e.getMessage();
        }
        String to = event.path("to").asText("?");
        JsonNode source = event.get("source");
        if (source != null && source.isObject()) {
            Coordinates c = new Coordinates(source.path("topic").asText(), source.path("partition").asInt(), source.path("offset").asLong());
            bySource.computeIfAbsent(c, k -> new CopyOnWriteArrayList<>()).add(to);
        } else if (output.key() != null) {
            unsourcedByKey.computeIfAbsent(output.keyText(), k -> new CopyOnWriteArrayList<>()).add(to);
            if (to.equals("PENDING") && event.hasNonNull("dueAt")) {
                firstPendingDueAt.putIfAbsent(output.keyText(), event.get("dueAt").asText());
            }
        }
        return null;
    }

    private static String describeKey(Output output) {
        if (output.key() == null) {
            return "null";
        }
        String key = output.keyText();
        return key.length() <= 80 ? key : key.substring(0, 40) + "...(" + output.key().length + " B)";
    }

    private static int parseInt(String text) {
        try {
            return text == null ? -1 : Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Answers carrying these coordinates: the {@code to} of ax.state events, and {@link #QUARANTINED}. */
    public List<String> answersFor(Coordinates coordinates) {
        return List.copyOf(bySource.getOrDefault(coordinates, List.of()));
    }

    /** {@code to} of the events without a source written under this key, in order. */
    public List<String> eventsFor(String key) {
        return key == null ? List.of() : List.copyOf(unsourcedByKey.getOrDefault(key, List.of()));
    }

    /** Events of a live execution that a report or cancel caused (not its PENDING and TRIGGERED). */
    public long liveOutcomes(String key) {
        return eventsFor(key).stream().filter(to -> !to.equals("PENDING") && !to.equals("TRIGGERED")).count();
    }

    /** The {@code dueAt} of the first PENDING event under this key, as written (ISO-8601), or null. */
    public String firstPendingDueAt(String key) {
        return key == null ? null : firstPendingDueAt.get(key);
    }

    public List<Dispatch> dispatchesFor(String key) {
        return key == null ? List.of() : List.copyOf(dispatchesByKey.getOrDefault(key, List.of()));
    }

    /** A canary fired: PENDING, then TRIGGERED, on ax.state, and a RUN dispatch. */
    public boolean canaryFired(String key) {
        List<String> events = eventsFor(key);
        return events.contains("PENDING") && events.contains("TRIGGERED")
                && dispatchesFor(key).stream().anyMatch(d -> "RUN".equals(d.kind()));
    }

    /**
     * The answers to a non-live input sent at {@code coordinates}: those carrying its coordinates, plus PENDING when the
     * input was a valid request under a key of its own (PENDING events carry no source).
     */
    public List<String> answersFor(Coordinates coordinates, String ownKey) {
        List<String> answers = new ArrayList<>(answersFor(coordinates));
        if (ownKey != null && eventsFor(ownKey).contains("PENDING")) {
            answers.add("PENDING");
        } else if (ownKey != null && eventsFor(ownKey).contains("WAITING")) {
            answers.add("WAITING"); // a valid request with after: it waits for other tasks, untimed
        }
        return answers;
    }

    public List<String> oversized() {
        return List.copyOf(oversized);
    }

    public long largestOutputBytes() {
        return largest.get();
    }

    public String largestOutputTopic() {
        return largestWhere;
    }

    public long outputs() {
        return outputs.get();
    }
}
