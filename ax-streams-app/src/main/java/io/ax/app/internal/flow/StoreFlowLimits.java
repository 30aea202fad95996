package io.ax.app.internal.flow;

import io.ax.FlowLimit;
import io.ax.app.internal.core.FlowLimits;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.List;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The limits in force, read from the global limits store (every instance has all of them). Values in the store were
 * checked by {@link ApplyLimitRecord}; one that still fails to parse counts as absent. Bound to its store in the
 * processor's {@code init}; until then (and without a store) nothing is gated.
 *
 * <p>Every dispatch asks for the limits of its job type and owner, nearly always keys with no limit: a RocksDB miss
 * each (a JNI call and a C++ exception inside it, 6 % of a burst's firing time). What was read, limits and absences,
 * is kept in memory until the store changes ({@link LimitsChanges}), at most {@link #CACHED_MAX} keys.
 */
public final class StoreFlowLimits implements FlowLimits {
    /** Keys kept at most; past it the cache starts over (owners are many; job types and limits are few). */
    static final int CACHED_MAX = 10_000;
    private static final Optional<FlowLimit> NONE = Optional.empty();

    private ReadOnlyKeyValueStore<String, String> store;
    private LimitsChanges changes;
    private long changesSeen = -1;
    private final Map<String, Optional<FlowLimit>> cached = new HashMap<>();

    /** Binds the store; {@code changes} says when it changed (null: nothing is cached). */
    public void attach(ReadOnlyKeyValueStore<String, String> store, LimitsChanges changes) {
        this.store = store;
        this.changes = changes;
        cached.clear();
    }

    /** The limit of {@code key}, or null. */
    public FlowLimit limit(String key) {
        if (store == null) {
            return null;
        }
        if (changes == null) {
            return read(key);
        }
        long count = changes.count(); // before the store: a change after it makes the next call start over
        if (count != changesSeen || cached.size() >= CACHED_MAX) {
            cached.clear();
            changesSeen = count;
        }
        Optional<FlowLimit> known = cached.get(key);
        if (known == null) {
            FlowLimit read = read(key);
            known = read == null ? NONE : Optional.of(read);
            cached.put(key, known);
        }
        return known.orElse(null);
    }

    private FlowLimit read(String key) {
        String json = store.get(key);
        if (json == null) {
            return null;
        }
        try {
            return FlowLimit.parse(key, json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The limit in force for {@code owner}: its own record, else the default {@code owner:*}, else null. */
    public FlowLimit ownerLimit(String owner) {
        FlowLimit own = limit(ownerKey(owner));
        return own != null ? own : limit("owner:*");
    }

    /** The weight of {@code owner} at a type gate (1 unless set). */
    public int weight(String owner) {
        FlowLimit limit = owner == null ? limit("owner:*") : ownerLimit(owner);
        return limit == null ? 1 : limit.weightOrDefault();
    }

    public static String ownerKey(String owner) {
        return "owner:" + owner;
    }

    public static String typeKey(String jobType) {
        return "type:" + jobType;
    }

    @Override
    public Integer maxLiveTasks(String owner) {
        FlowLimit limit = owner == null ? null : ownerLimit(owner);
        return limit == null ? null : limit.maxLiveTasks();
    }

    @Override
    public List<String> gatesFor(String jobType, String owner) {
        if (store == null) {
            return List.of();
        }
        List<String> gates = new ArrayList<>(2);
        if (owner != null) {
            FlowLimit ownerLimit = ownerLimit(owner);
            if (ownerLimit != null && ownerLimit.gatesOwner()) {
                gates.add(ownerKey(owner));
            }
        }
        FlowLimit type = limit(typeKey(jobType));
        if (type != null && type.gatesType()) {
            gates.add(typeKey(jobType));
        }
        return gates;
    }
}
