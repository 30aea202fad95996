package io.ax.app.internal.flow;

import io.ax.FlowLimit;
import io.ax.app.internal.core.FlowLimits;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The limits in force, read from the global limits store (every instance has all of them). Values in the store were
 * checked by {@link ApplyLimitRecord}; one that still fails to parse counts as absent. Bound to its store in the
 * processor's {@code init}; until then (and without a store) nothing is gated.
 */
public final class StoreFlowLimits implements FlowLimits {
    private ReadOnlyKeyValueStore<String, String> store;

    public void attach(ReadOnlyKeyValueStore<String, String> store) {
        this.store = store;
    }

    /** The limit of {@code key}, or null. */
    public FlowLimit limit(String key) {
        if (store == null) {
            return null;
        }
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
            if (ownerLimit != null && ownerLimit.maxInFlight() != null) {
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
