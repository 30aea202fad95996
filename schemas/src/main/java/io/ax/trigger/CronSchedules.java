package io.ax.trigger;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parsed cron expressions, by expression and zone: a cron task's expression is parsed once, when its request is
 * validated (by the client, and by the scheduler on receipt), and then found here at every fire of the task, not
 * parsed again (cron-utils' parse is the costly part of a next-time lookup;
 * {@link CronSchedule} is immutable, so one parse serves every task with the same expression and zone).
 *
 * <p>Bounded ({@value #MAX_ENTRIES} entries, least recently used out first): tasks bring their own expressions, so
 * the number of distinct ones is the producers' choice, and a task whose entry was evicted is parsed once more at its
 * next fire. Thread-safe: shared by every stream thread of the instance. The cache holds no decision state, so the
 * rules stay a pure function of their inputs.
 */
public final class CronSchedules {
    public static final int MAX_ENTRIES = 4096;

    private static final Map<String, CronSchedule> CACHE = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, CronSchedule> eldest) {
            return size() > MAX_ENTRIES;
        }
    };

    private CronSchedules() {
    }

    /**
     * The schedule of {@code expression} in {@code zoneId}, parsed on first use.
     *
     * @throws io.ax.InvalidRequestException naming the bad expression or zone (nothing is cached then)
     */
    public static CronSchedule get(String expression, String zoneId) {
        String key = expression + '\n' + zoneId;
        synchronized (CACHE) {
            CronSchedule cached = CACHE.get(key);
            if (cached != null) {
                return cached;
            }
        }
        CronSchedule parsed = CronSchedule.parse(expression, zoneId); // outside the lock: parsing is the slow part
        synchronized (CACHE) {
            CACHE.putIfAbsent(key, parsed);
        }
        return parsed;
    }

    /** Entries held now. */
    public static int size() {
        synchronized (CACHE) {
            return CACHE.size();
        }
    }
}
