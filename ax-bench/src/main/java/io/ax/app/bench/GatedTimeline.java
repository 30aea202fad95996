package io.ax.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;
import java.util.function.IntToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;

/**
 * Where a gated task's lateness goes, from its events on the state topic (their {@code atMs}, the deciding instance's
 * clock, minus the due time): held by its partition (the ACQUIRE sent), held at the gate (the gate had no slot), and
 * TRIGGERED (the grant applied, the dispatch written). Only tasks {@code <prefix><i>} for which {@code tracked} holds.
 */
final class GatedTimeline extends TopicTail {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final TaskKeys keys;
    private final int n;
    private final IntPredicate tracked;
    private final IntToLongFunction dueMsOf;
    private final Map<String, LatencyRecorder> recorders = new ConcurrentHashMap<>();

    private GatedTimeline(Map<String, Object> kafka, String stateTopic, Clock clock, TaskKeys keys, int n, IntPredicate tracked,
                          IntToLongFunction dueMsOf) {
        super(kafka, stateTopic, clock);
        this.keys = keys;
        this.n = n;
        this.tracked = tracked;
        this.dueMsOf = dueMsOf;
    }

    static GatedTimeline start(Map<String, Object> kafka, String stateTopic, Clock clock, TaskKeys keys, int n,
                               IntPredicate tracked, IntToLongFunction dueMsOf) {
        GatedTimeline timeline = new GatedTimeline(kafka, stateTopic, clock, keys, n, tracked, dueMsOf);
        timeline.start();
        return timeline;
    }

    @Override
    void onBatch(ConsumerRecords<String, byte[]> records, long seenAtMs) {
        for (ConsumerRecord<String, byte[]> record : records) {
            int index = keys.indexOf(record.key(), n);
            if (index < 0 || record.value() == null || !tracked.test(index)) {
                continue;
            }
            JsonNode event;
            long atMs;
            try {
                event = JSON.readTree(record.value());
                atMs = java.time.Instant.parse(event.path("at").asText()).toEpochMilli(); // ISO-8601, ms precision
            } catch (IOException | java.time.format.DateTimeParseException e) {
                continue;
            }
            String reason = event.path("reason").asText("");
            String to = event.path("to").asText("");
            String stage = to.equals("TRIGGERED") && event.path("attempt").asInt() == 1 ? "triggered"
                    : reason.startsWith("held: waiting for a slot") ? "partition_held"
                    : reason.startsWith("held: ") ? "gate_held" : null;
            if (stage != null) {
                recorders.computeIfAbsent(stage, s -> new LatencyRecorder()).record(atMs - dueMsOf.applyAsLong(index));
            }
        }
    }

    /** Event time − due of {@code stage} (partition_held, gate_held, triggered); empty when none came. */
    LatencyRecorder stage(String stage) {
        return recorders.getOrDefault(stage, new LatencyRecorder());
    }
}
