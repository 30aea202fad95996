package io.ax.app.bench;

/**
 * Task ids of the form {@code <prefix><i>} ({@code task-17}), so trackers can index compact arrays by task
 * number instead of keeping a map of strings: a million tasks cost a few MB. Scattered ({@code --random-ids}), task i's
 * id is {@code <prefix>} and eight hex digits of a bijection of i ({@code task-9e3779b1}): consecutive tasks land at
 * random places in the byte order of ids, as UUIDs do, instead of next to each other, and the number is still recovered
 * from the id.
 */
public record TaskKeys(String prefix, boolean scattered) {
    public static final TaskKeys TASKS = new TaskKeys("task-");
    private static final int ODD = 0x9E3779B1;
    private static final int ODD_INVERSE = inverse(ODD);

    public TaskKeys(String prefix) {
        this(prefix, false);
    }

    public String key(int index) {
        if (!scattered) {
            return prefix + index;
        }
        String hex = Integer.toHexString(scatter(index));
        return prefix + "00000000".substring(hex.length()) + hex;
    }

    /** The task number in {@code key}, or -1 when it is not one of ours or not below {@code limit}. */
    public int indexOf(String key, int limit) {
        if (key == null || !key.startsWith(prefix) || key.length() == prefix.length() || key.length() > prefix.length() + 10) {
            return -1;
        }
        if (scattered) {
            if (key.length() != prefix.length() + 8) {
                return -1;
            }
            int value = 0;
            for (int i = prefix.length(); i < key.length(); i++) {
                int digit = Character.digit(key.charAt(i), 16);
                if (digit < 0 || Character.isUpperCase(key.charAt(i))) {
                    return -1;
                }
                value = value << 4 | digit;
            }
            int index = gather(value);
            return index >= 0 && index < limit ? index : -1;
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

    /** A bijection of the ints: a multiply by an odd constant, then the high half folded into the low. */
    static int scatter(int index) {
        int x = index * ODD;
        return x ^ (x >>> 16);
    }

    /** The inverse of {@link #scatter}: the fold undoes itself, then the multiply by the constant's inverse. */
    static int gather(int value) {
        int x = value ^ (value >>> 16);
        return x * ODD_INVERSE;
    }

    /** The inverse of an odd int modulo 2^32, by Newton's iteration (each step doubles the correct low bits). */
    private static int inverse(int odd) {
        int x = odd; // correct to 3 bits for an odd number
        for (int i = 0; i < 5; i++) {
            x *= 2 - odd * x;
        }
        return x;
    }
}
