package io.ax.fair;

/**
 * The one order of waiting work by due time and priority, used by the scheduler's wheel, its flow gates and the
 * worker's lanes: {@code rank = dueAtMs − priority × agingMs}, lowest first. A priority level is worth {@code agingMs}
 * of waiting, so a priority-9 item goes before lower ones due up to 9 × {@code agingMs} before it and no more: a low
 * priority is delayed, never starved. Ties are the caller's (arrival order everywhere in ax).
 */
public final class Rank {
    /** The lowest and highest priority (the contract's 0–9); a value outside counts as the nearest of them. */
    public static final int MIN_PRIORITY = 0;
    public static final int MAX_PRIORITY = 9;

    private Rank() {
    }

    /** The rank of an item due at {@code dueAtMs} with {@code priority}, when one level is worth {@code agingMs}. */
    public static long of(long dueAtMs, int priority, long agingMs) {
        return dueAtMs - clamp(priority) * agingMs;
    }

    /** {@code priority} within {@link #MIN_PRIORITY}–{@link #MAX_PRIORITY}. */
    public static int clamp(int priority) {
        return Math.max(MIN_PRIORITY, Math.min(MAX_PRIORITY, priority));
    }
}
