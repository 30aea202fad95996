package io.ax.app.internal.metrics;

import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.Avg;
import org.apache.kafka.common.metrics.stats.CumulativeCount;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Percentile;
import org.apache.kafka.common.metrics.stats.Percentiles;
import org.apache.kafka.streams.StreamsMetrics;

/**
 * How late the scheduler fires, per stream task: fire time − due time of every dispatched attempt, in ms. The
 * same figure the benchmark measures, registered with Kafka Streams' metrics (so JMX and
 * {@code KafkaStreams.metrics()} show it): group {@value #GROUP}, tag {@code task-id}, metrics
 * {@code fire-lateness-avg}, {@code -max}, {@code -p50}, {@code -p99} (over the last two 30 s windows) and
 * {@code fired-total}. Lateness above 10 s is counted in the top bucket of the percentiles.
 */
public final class FireLateness {
    public static final String GROUP = "ax-scheduler-metrics";
    private static final double MAX_TRACKED_MS = 10_000;
    private static final int HISTOGRAM_BYTES = 4_000;

    private final StreamsMetrics metrics;
    private final Sensor sensor;

    public FireLateness(StreamsMetrics metrics, String taskId) {
        this.metrics = metrics;
        Map<String, String> tags = Map.of("task-id", taskId);
        sensor = metrics.addSensor("ax-fire-lateness-" + taskId, Sensor.RecordingLevel.INFO);
        sensor.add(name("fire-lateness-avg", "average fire time − due time, ms", tags), new Avg());
        sensor.add(name("fire-lateness-max", "largest fire time − due time, ms", tags), new Max());
        sensor.add(name("fired-total", "attempts fired since start", tags), new CumulativeCount());
        sensor.add(new Percentiles(HISTOGRAM_BYTES, MAX_TRACKED_MS, Percentiles.BucketSizing.LINEAR,
                new Percentile(name("fire-lateness-p50", "median fire time − due time, ms", tags), 50),
                new Percentile(name("fire-lateness-p99", "99th percentile of fire time − due time, ms", tags), 99)));
    }

    private static MetricName name(String name, String description, Map<String, String> tags) {
        return new MetricName(name, GROUP, description, tags);
    }

    public void record(long dueAtMs, long firedAtMs) {
        sensor.record(Math.max(0, firedAtMs - dueAtMs), firedAtMs);
    }

    public void close() {
        metrics.removeSensor(sensor);
    }
}
