package io.ax.app.bench;

/**
 * Task ids of the form {@code <prefix><i>} ({@code task-17}), so trackers can index compact arrays by task
 * number instead of keeping a map of strings: a million tasks cost a few MB.
 */
public record TaskKeys(String prefix) {
    public static final TaskKeys TASKS = new TaskKeys("task-");

    public String key(int index) {
        return prefix + index;
    }

    /** The task number in {@code key}, or -1 when it is not one of ours or not below {@code limit}. */
    public int indexOf(String key, int limit) {
        if (key == null || !key.startsWith(prefix) || key.length() == prefix.length() || key.length() > prefix.length() + 10) {
            return -1;
        }
        long index = 0;
        for (int i = prefix.length(); i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            index = index * 10 + (c - '0');
        }
        return index < limit ? (int) index : -1;
    }
}
