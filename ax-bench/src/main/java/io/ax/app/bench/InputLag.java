package io.ax.app.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far a scheduler is behind on its input topics (requests, results, retry): end offsets minus the offsets
 * its application has committed. A steady run waits for zero between warm-up and measurement: the worker may
 * be done with the warm-up while the scheduler still has its reports to read, and Kafka Streams reads the
 * older records of a task's partitions first, so that backlog would delay the first measured requests.
 */
final class InputLag {
    private InputLag() {
    }

    /** Waits until {@code applicationId} has committed the end of every partition of {@code topics}; false on timeout. */
    static boolean awaitZero(Map<String, Object> kafka, String applicationId, List<String> topics, Clock clock, Duration timeout)
            throws InterruptedException, ExecutionException {
        try (Admin admin = Admin.create(kafka)) {
            long deadlineMs = clock.millis() + timeout.toMillis();
            while (true) {
                if (lag(admin, applicationId, topics) == 0) {
                    return true;
                }
                if (clock.millis() >= deadlineMs) {
                    return false;
                }
                Thread.sleep(100);
            }
        }
    }

    static long lag(Admin admin, String applicationId, List<String> topics) throws InterruptedException, ExecutionException {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(applicationId)
                .partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, OffsetSpec> ends = new java.util.HashMap<>();
        for (var description : admin.describeTopics(topics).allTopicNames().get().values()) {
            description.partitions().forEach(p -> ends.put(new TopicPartition(description.name(), p.partition()),
                    OffsetSpec.latest()));
        }
        long lag = 0;
        for (Map.Entry<TopicPartition, ListOffsetsResultInfo> end : admin.listOffsets(ends).all().get().entrySet()) {
            OffsetAndMetadata done = committed.get(end.getKey());
            lag += Math.max(0, end.getValue().offset() - (done == null ? 0 : done.offset()));
        }
        return lag;
    }
}
