package io.ax.worker.internal;

import io.ax.AxTopics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's poll loop: poll a batch of dispatches, run them on the handler threads, wait for every
 * handler and for its reports to be acknowledged, then commit. So a crash means redelivery, never loss.
 *
 * <p>Per partition the commit covers the longest prefix of the batch that is dealt with; the consumer is
 * rewound to the first record that is not (interrupted before its due time, or a report not acknowledged),
 * which is polled again. The loop never polls while a batch runs, so a rebalance cannot revoke a partition
 * under a running handler; a batch that outlives {@code max.poll.interval.ms} loses the group membership,
 * its commit fails, and its records are redelivered to the new owner.
 *
 * <p>Runs on one thread; only {@link #stop()} may be called from another.
 */
public final class DispatchLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(DispatchLoop.class);

    private final Consumer<String, byte[]> consumer;
    private final Producer<String, byte[]> producer;
    private final DispatchRunner runner;
    private final ExecutorService handlerThreads;
    private final AxTopics topics;
    private final Duration pollTimeout;
    private volatile boolean stopping;

    public DispatchLoop(Consumer<String, byte[]> consumer, Producer<String, byte[]> producer, DispatchRunner runner,
                        ExecutorService handlerThreads, AxTopics topics, Duration pollTimeout) {
        this.consumer = consumer;
        this.producer = producer;
        this.runner = runner;
        this.handlerThreads = handlerThreads;
        this.topics = topics;
        this.pollTimeout = pollTimeout;
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(List.of(topics.dispatch()));
            while (!stopping) {
                processBatch(consumer.poll(pollTimeout));
            }
        } catch (WakeupException e) {
            if (!stopping) {
                log.error("Worker loop woken up without being stopped; stopping", e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.warn("Worker loop interrupted; stopping. Uncommitted dispatches will be redelivered");
        } catch (Throwable e) {
            log.error("Worker loop stopped by an unexpected error; uncommitted dispatches will be redelivered", e);
        } finally {
            closeClients();
        }
    }

    /** Asks the loop to finish its current batch and stop; thread-safe. */
    public void stop() {
        stopping = true;
        consumer.wakeup();
    }

    /** Runs one batch to completion and commits what is dealt with. Visible for testing. */
    public void processBatch(ConsumerRecords<String, byte[]> records) throws InterruptedException {
        if (records.isEmpty()) {
            return;
        }
        Map<TopicPartition, List<InFlight>> batch = submit(records);
        Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
        Map<TopicPartition, Long> rewinds = new HashMap<>();
        for (Map.Entry<TopicPartition, List<InFlight>> partition : batch.entrySet()) {
            maybeAdvance(partition.getKey(), partition.getValue(), commits, rewinds);
        }
        commit(commits);
        rewinds.forEach((partition, offset) -> {
            log.warn("Rewinding {} to offset {}: dispatches from there were not dealt with and will be redelivered",
                    partition, offset);
            consumer.seek(partition, offset);
        });
    }

    /** Closes the handler threads and both clients; called by the loop thread when it ends, or instead of it. */
    public void closeClients() {
        handlerThreads.shutdownNow();
        try {
            producer.close();
        } catch (RuntimeException e) {
            log.warn("Closing the report producer failed", e);
        }
        try {
            consumer.close();
        } catch (RuntimeException e) {
            log.warn("Closing the dispatch consumer failed", e);
        }
    }

    private Map<TopicPartition, List<InFlight>> submit(ConsumerRecords<String, byte[]> records) {
        Map<TopicPartition, List<InFlight>> batch = new HashMap<>();
        for (TopicPartition partition : records.partitions()) {
            List<InFlight> inFlight = new ArrayList<>();
            for (ConsumerRecord<String, byte[]> record : records.records(partition)) {
                RecordReports reports = new RecordReports(producer, topics.results());
                inFlight.add(new InFlight(record, handlerThreads.submit(() -> runner.run(record, reports)), reports));
            }
            batch.put(partition, inFlight);
        }
        return batch;
    }

    /**
     * Waits for every record of the partition (even past one not dealt with, so nothing from this batch still
     * runs when the rewound records are polled again), then notes how far the partition may be committed.
     */
    private static void maybeAdvance(TopicPartition partition, List<InFlight> inFlight,
                                     Map<TopicPartition, OffsetAndMetadata> commits, Map<TopicPartition, Long> rewinds)
            throws InterruptedException {
        Long firstUndone = null;
        for (InFlight record : inFlight) {
            if (!record.awaitDone() && firstUndone == null) {
                firstUndone = record.record().offset();
            }
        }
        long firstOffset = inFlight.get(0).record().offset();
        long nextOffset = inFlight.get(inFlight.size() - 1).record().offset() + 1;
        long commitOffset = firstUndone == null ? nextOffset : firstUndone;
        if (commitOffset > firstOffset) {
            commits.put(partition, new OffsetAndMetadata(commitOffset));
        }
        if (firstUndone != null) {
            rewinds.put(partition, firstUndone);
        }
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (offsets.isEmpty()) {
            return;
        }
        try {
            try {
                consumer.commitSync(offsets);
            } catch (WakeupException e) {
                // stop() was called during the batch; the wakeup is spent, so finish this commit, then stop.
                consumer.commitSync(offsets);
            }
        } catch (CommitFailedException | RebalanceInProgressException e) {
            log.warn("Could not commit {}: the group rebalanced, so these dispatches will be redelivered to their new owner",
                    offsets, e);
        }
    }
}
