package io.ax.app.internal.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A label whose values come from users (job types): the first {@code max} distinct values seen are kept as they
 * are, every later one reads {@value #OTHER}, so one producer inventing job types cannot grow the series without end.
 * Thread-safe.
 */
final class BoundedLabels {
    static final String OTHER = "_other";
    static final String NONE = "_none";

    private final int max;
    private final Set<String> seen = ConcurrentHashMap.newKeySet();

    BoundedLabels(int max) {
        this.max = max;
    }

    String of(String value) {
        if (value == null || value.isEmpty()) {
            return NONE;
        }
        if (seen.contains(value)) {
            return value;
        }
        synchronized (seen) {
            if (seen.size() < max) {
                seen.add(value);
                return value;
            }
        }
        return seen.contains(value) ? value : OTHER;
    }
}
