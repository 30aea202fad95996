package io.ax.app.fuzz;

/** Where a record sits: topic, partition, offset. */
public record Coordinates(String topic, int partition, long offset) {
    @Override
    public String toString() {
        return topic + "/" + partition + "@" + offset;
    }
}
