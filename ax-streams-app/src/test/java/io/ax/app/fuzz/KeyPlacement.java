package io.ax.app.fuzz;

/** How an input's key meets the partitions of the run that sends it. */
public enum KeyPlacement {
    /** The key is a prefix; the run completes it to a fresh key that the partition under test owns (murmur2). */
    FRESH,
    /** The key is a prefix; the run completes it to a key another partition owns, and sends it to the partition under test. */
    WRONG_PARTITION,
    /** The key (possibly null) is sent as given, to the partition under test. */
    AS_IS
}
