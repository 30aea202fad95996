package io.ax;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One flow-control limit, the value of a record of the compacted {@code ax.limits} topic (topology-docs/FLOW-CONTROL.md),
 * as the JSON object {@code {"maxInFlight":50,"maxPerSecond":200,"maxNotStarted":1000,"weight":1}} (absent field: no
 * such limit). Which fields a key takes:
 * <ul>
 *   <li>{@code type:<jobType>}: {@code maxInFlight} (executions dispatched and not ended, across the fleet),
 *   {@code maxPerSecond} (dispatches per second) with its {@code burst}, {@code maxNotStarted} (dispatched, not yet
 *   STARTED by a worker: backpressure);</li>
 *   <li>{@code owner:<owner>} and {@code owner:*} (the default for every owner without a record of its own):
 *   {@code maxInFlight} (that owner's executions in flight), {@code maxPerSecond} (that owner's dispatches per second,
 *   across the fleet) with its {@code burst}, {@code weight} (its share at a busy type gate, 1-1000), {@code maxLiveTasks}
 *   (that owner's live tasks admitted through its live gate: a new task over it is REJECTED).</li>
 * </ul>
 * A tombstone (null value) removes the key's limits.
 *
 * @param maxInFlight   null = no limit
 * @param maxPerSecond  null = no limit
 * @param maxNotStarted null = no limit
 * @param weight        null = 1
 * @param maxLiveTasks  owner keys only; null = no limit
 * @param burst         with maxPerSecond: how many dispatches may go at once after a quiet spell (the token bucket's
 *                      size); null = {@code max(1, maxPerSecond / 10)}, 100 ms of the rate
 */
public record FlowLimit(Integer maxInFlight, Double maxPerSecond, Integer maxNotStarted, Integer weight, Integer maxLiveTasks,
                        Integer burst) {
    /**
     * Strict like the other JSON inputs: a field named twice and content after the object are refused, so a garbled
     * record ({@code {}garbage}) cannot pass for "no limits" and remove the key's limits.
     */
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Pattern TYPE_KEY = Pattern.compile("type:[A-Za-z0-9._:-]{1,128}");
    private static final Set<String> TYPE_FIELDS = java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(java.util.List.of("maxInFlight", "maxPerSecond", "burst", "maxNotStarted")));
    private static final Set<String> OWNER_FIELDS = java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(java.util.List.of("maxInFlight", "maxPerSecond", "burst", "weight", "maxLiveTasks")));
    /** Longest owner a key may name, as a schedule request's owner. */
    public static final int MAX_OWNER_CHARS = 256;
    public static final int MAX_IN_FLIGHT = 1_000_000;
    public static final double MAX_PER_SECOND = 1_000_000;
    public static final int MAX_WEIGHT = 1_000;
    /** Longest JSON value a limits record may have. */
    public static final int MAX_VALUE_BYTES = 1_024;

    public FlowLimit {
        requireRange("maxInFlight", maxInFlight, MAX_IN_FLIGHT);
        requireRange("maxNotStarted", maxNotStarted, MAX_IN_FLIGHT);
        requireRange("weight", weight, MAX_WEIGHT);
        requireRange("maxLiveTasks", maxLiveTasks, MAX_IN_FLIGHT);
        if (maxPerSecond != null && !(maxPerSecond > 0 && maxPerSecond <= MAX_PER_SECOND)) {
            throw new InvalidRequestException("maxPerSecond", "maxPerSecond must be > 0 and <= " + MAX_PER_SECOND + ": " + maxPerSecond);
        }
        requireRange("burst", burst, MAX_IN_FLIGHT);
        if (burst != null && maxPerSecond == null) {
            throw new InvalidRequestException("burst", "burst is the size of a maxPerSecond bucket: set maxPerSecond with it");
        }
    }

    /** The limits without {@code burst} (the form before it: the bucket holds 100 ms of the rate). */
    public FlowLimit(Integer maxInFlight, Double maxPerSecond, Integer maxNotStarted, Integer weight, Integer maxLiveTasks) {
        this(maxInFlight, maxPerSecond, maxNotStarted, weight, maxLiveTasks, null);
    }

    /** The limits without {@code maxLiveTasks} (the form before owner live-task quotas). */
    public FlowLimit(Integer maxInFlight, Double maxPerSecond, Integer maxNotStarted, Integer weight) {
        this(maxInFlight, maxPerSecond, maxNotStarted, weight, null);
    }

    public static FlowLimit none() {
        return new FlowLimit(null, null, null, null, null);
    }

    public FlowLimit withMaxInFlight(Integer value) {
        return new FlowLimit(value, maxPerSecond, maxNotStarted, weight, maxLiveTasks, burst);
    }

    public FlowLimit withMaxPerSecond(Double value) {
        return new FlowLimit(maxInFlight, value, maxNotStarted, weight, maxLiveTasks, burst);
    }

    public FlowLimit withMaxNotStarted(Integer value) {
        return new FlowLimit(maxInFlight, maxPerSecond, value, weight, maxLiveTasks, burst);
    }

    public FlowLimit withWeight(Integer value) {
        return new FlowLimit(maxInFlight, maxPerSecond, maxNotStarted, value, maxLiveTasks, burst);
    }

    /** An owner's quota of live tasks (owner keys only): a new task over it is REJECTED. */
    public FlowLimit withMaxLiveTasks(Integer value) {
        return new FlowLimit(maxInFlight, maxPerSecond, maxNotStarted, weight, value, burst);
    }

    /** The size of the maxPerSecond bucket (with maxPerSecond). */
    public FlowLimit withBurst(Integer value) {
        return new FlowLimit(maxInFlight, maxPerSecond, maxNotStarted, weight, maxLiveTasks, value);
    }

    /** The tokens the maxPerSecond bucket holds when full: {@code burst}, else 100 ms of the rate (at least 1). */
    public double bucketSize() {
        return burst != null ? burst : Math.max(1, maxPerSecond / 10);
    }

    /** Whether an owner gate has anything to enforce (maxInFlight or maxPerSecond; weight acts at type gates). */
    public boolean gatesOwner() {
        return maxInFlight != null || maxPerSecond != null;
    }

    /** The weight in force: 1 unless set. */
    public int weightOrDefault() {
        return weight == null ? 1 : weight;
    }

    /** Whether a type gate has anything to enforce. */
    public boolean gatesType() {
        return maxInFlight != null || maxPerSecond != null || maxNotStarted != null;
    }

    private static void requireRange(String field, Integer value, int max) {
        if (value != null && (value < 1 || value > max)) {
            throw new InvalidRequestException(field, field + " must be between 1 and " + max + ": " + value);
        }
    }

    /** @throws InvalidRequestException unless {@code key} is {@code type:<jobType>}, {@code owner:<owner>} or {@code owner:*} */
    public static void validateKey(String key) {
        if (key == null) {
            throw new InvalidRequestException("key", "a limits record needs a key: type:<jobType>, owner:<owner> or owner:*");
        }
        if (key.startsWith("owner:")) {
            String owner = key.substring("owner:".length());
            if (owner.isEmpty() || owner.length() > MAX_OWNER_CHARS || owner.chars().anyMatch(Character::isISOControl)) {
                throw new InvalidRequestException("key", "owner key must name 1-" + MAX_OWNER_CHARS
                        + " chars without control characters, or * for the default: " + io.ax.validation.Quote.of(key));
            }
            return;
        }
        if (!TYPE_KEY.matcher(key).matches()) {
            // quoted short: a record key can be a megabyte, and the reason is logged and kept for GET /limits
            throw new InvalidRequestException("key", "limits key must be type:<jobType>, owner:<owner> or owner:*: "
                    + io.ax.validation.Quote.of(key));
        }
    }

    /**
     * Parses a limits record's value for {@code key}.
     *
     * @throws InvalidRequestException with a reason naming the field: bad key, not a JSON object, unknown field or one the
     *                                 key kind does not take, out of range
     */
    public static FlowLimit parse(String key, byte[] value) {
        validateKey(key);
        if (value.length > MAX_VALUE_BYTES) {
            throw new InvalidRequestException(null, "limits value is " + value.length + " bytes, more than " + MAX_VALUE_BYTES);
        }
        JsonNode tree;
        try {
            tree = MAPPER.readTree(value);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new InvalidRequestException(null, "limits value is not JSON: " + e.getOriginalMessage());
        } catch (java.io.IOException e) {
            throw new InvalidRequestException(null, "limits value is not JSON: " + e.getMessage());
        }
        if (tree == null || !tree.isObject()) {
            throw new InvalidRequestException(null, "limits value must be a JSON object such as {\"maxInFlight\":50}");
        }
        Set<String> allowed = key.startsWith("owner:") ? OWNER_FIELDS : TYPE_FIELDS;
        for (Iterator<Map.Entry<String, JsonNode>> fields = tree.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (!allowed.contains(field.getKey())) {
                throw new InvalidRequestException(field.getKey(), (key.startsWith("owner:") ? "an owner" : "a type")
                        + " key takes " + allowed + ", not " + field.getKey());
            }
            if (!field.getValue().isNumber() && !field.getValue().isNull()) {
                throw new InvalidRequestException(field.getKey(), field.getKey() + " must be a number: " + field.getValue());
            }
        }
        return new FlowLimit(intField(tree, "maxInFlight"), tree.hasNonNull("maxPerSecond") ? tree.get("maxPerSecond").asDouble() : null,
                intField(tree, "maxNotStarted"), intField(tree, "weight"), intField(tree, "maxLiveTasks"), intField(tree, "burst"));
    }

    private static Integer intField(JsonNode tree, String name) {
        JsonNode node = tree.get(name);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.canConvertToInt() || node.isFloatingPointNumber() && node.asDouble() != node.asInt()) {
            throw new InvalidRequestException(name, name + " must be a whole number: " + node);
        }
        return node.asInt();
    }

    /** The JSON form, fields that are set only. */
    public String toJson() {
        ObjectNode node = MAPPER.createObjectNode();
        if (maxInFlight != null) {
            node.put("maxInFlight", maxInFlight);
        }
        if (maxPerSecond != null) {
            node.put("maxPerSecond", maxPerSecond);
        }
        if (burst != null) {
            node.put("burst", burst);
        }
        if (maxNotStarted != null) {
            node.put("maxNotStarted", maxNotStarted);
        }
        if (weight != null) {
            node.put("weight", weight);
        }
        if (maxLiveTasks != null) {
            node.put("maxLiveTasks", maxLiveTasks);
        }
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public byte[] toJsonBytes() {
        return toJson().getBytes(StandardCharsets.UTF_8);
    }
}
