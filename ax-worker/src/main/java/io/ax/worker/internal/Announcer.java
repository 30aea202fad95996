package io.ax.worker.internal;

import io.ax.codec.WorkerAnnouncement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Announces the worker on the workers topic every heartbeat (README, "Worker registry"): its id, host, version, job
 * types, lanes with their limits, and the executions it holds (at most
 * {@value WorkerAnnouncement#MAX_IN_FLIGHT_LISTED} by name, with their count). Called by the poll loop, which polls at
 * least this often; a loop that stops (a fatal error, a stuck commit) stops announcing, and the scheduler declares the
 * worker dead after the missed heartbeats: what it should hear. {@link #goodbye()} tombstones the announcement on a
 * graceful close. Sends are fire-and-forget: a lost announcement is made good by the next. The scheduler creates the
 * workers topic; where it does not exist (an older scheduler, and topic auto-creation off) the first send waits the
 * producer's {@code max.block.ms} for it, and the worker then stops announcing. Not thread-safe: the poll loop's thread
 * only.
 */
public final class Announcer {
    private static final Logger log = LoggerFactory.getLogger(Announcer.class);
    private static final long GOODBYE_TIMEOUT_MS = 2_000;

    private final Producer<String, byte[]> producer;
    private final String topic;
    private final String workerId;
    private final String host;
    private final String version;
    private final long heartbeatMs;
    private final long startedAtMs;
    private final Map<String, Integer> limits;
    private final Clock clock;
    private long nextAtMs;
    private volatile boolean topicMissing;

    public Announcer(Producer<String, byte[]> producer, String topic, String workerId, String host, long heartbeatMs,
                     Map<String, Integer> limits, Clock clock) {
        this.producer = producer;
        this.topic = topic;
        this.workerId = workerId;
        this.host = host;
        this.version = version();
        this.heartbeatMs = heartbeatMs;
        this.limits = Map.copyOf(limits);
        this.clock = clock;
        this.startedAtMs = clock.millis();
    }

    /** When the next announcement is due, by the worker's clock. */
    long nextAtMs() {
        return nextAtMs;
    }

    /** Announces when a heartbeat has passed since the last announcement (or none was made yet). */
    void maybeAnnounce(Lanes lanes, Collection<Execution> inFlight) {
        long nowMs = clock.millis();
        if (nowMs < nextAtMs) {
            return;
        }
        nextAtMs = nowMs + heartbeatMs;
        if (topicMissing) {
            return;
        }
        try {
            producer.send(new ProducerRecord<>(topic, null, nowMs, workerId, announcement(lanes, inFlight).toJson()), (m, e) -> {
                if (e instanceof org.apache.kafka.common.errors.TimeoutException && String.valueOf(e.getMessage()).contains("not present in metadata")) {
                    // the producer waited max.block.ms on this thread for a topic that does not exist: once, not every heartbeat
                    topicMissing = true;
                    log.warn("Worker {}: the workers topic {} does not exist (a scheduler older than the worker registry, and "
                            + "topic auto-creation off): announcements are off until this worker restarts", workerId, topic);
                } else if (e != null) {
                    log.warn("Worker {}: announcement not sent ({}); the next one follows in {} ms", workerId, e.toString(), heartbeatMs);
                }
            });
        } catch (RuntimeException e) {
            log.warn("Worker {}: announcement not sent ({}); the next one follows in {} ms", workerId, e.toString(), heartbeatMs);
        }
    }

    // visible for testing
    WorkerAnnouncement announcement(Lanes lanes, Collection<Execution> inFlight) {
        List<WorkerAnnouncement.Lane> laneList = new ArrayList<>();
        limits.forEach((jobType, limit) -> laneList.add(new WorkerAnnouncement.Lane(jobType, limit, lanes.running(jobType),
                lanes.waiting(jobType))));
        laneList.sort(java.util.Comparator.comparing(WorkerAnnouncement.Lane::jobType));
        List<WorkerAnnouncement.InFlight> listed = new ArrayList<>();
        for (Execution execution : inFlight) {
            if (listed.size() == WorkerAnnouncement.MAX_IN_FLIGHT_LISTED) {
                break;
            }
            listed.add(new WorkerAnnouncement.InFlight(execution.executionId(), execution.taskId(), execution.jobType(),
                    Math.max(1, execution.task().getAttempt())));
        }
        return new WorkerAnnouncement(workerId, host, version, heartbeatMs, startedAtMs,
                laneList.stream().map(WorkerAnnouncement.Lane::jobType).toList(), laneList, listed, inFlight.size());
    }

    /** Tombstones the announcement, waiting at most 2 s for it: the registry lists the worker as LEFT, not DEAD. */
    void goodbye() {
        if (topicMissing) {
            return;
        }
        try {
            producer.send(new ProducerRecord<String, byte[]>(topic, null, (Long) clock.millis(), workerId, (byte[]) null)).get(GOODBYE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("Worker {}: goodbye not sent ({}); the scheduler will declare it dead once silent", workerId, e.toString());
        }
    }

    private static String version() {
        String version = Announcer.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
