package io.ax.worker.internal;

import io.ax.AxTopics;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's poll loop. It never waits for a handler: it polls, hands each RUN to its job type's lane,
 * applies completions, and commits per partition the lowest offset not yet done ({@link OffsetTracker}), so a
 * crash means redelivery, never loss. It polls at least every {@code busyPollTimeout} while work is in flight,
 * so it stays far inside {@code max.poll.interval.ms} however long handlers take. A backlogged job type pauses only
 * the partitions its overflow comes from, and only once the overflow is over its bound ({@link Lanes}), so other
 * job types keep flowing.
 *
 * <p>A run whose report was not acknowledged runs again, after a growing backoff ({@link #RERUN_BACKOFF}) held in
 * its lane without a thread, unless its partition was revoked meanwhile.
 *
 * <p>On a rebalance it commits what is done for the revoked partitions and drops their waiting executions
 * (the new owner gets them); handlers already running finish, and their reports still go out.
 *
 * <p>Shutdown, driven by {@code AxWorker.close}: {@link #stop()} stops fetching and starting handlers and drops
 * waiting ones (not reported, not committed: redelivered); the loop keeps polling (all partitions paused, so the
 * group membership holds) and committing until the running handlers are done. {@link #interruptHandlers()}
 * interrupts them (they report retryable); {@link #abandon()} reports the ones that ignore interruption as
 * retryable, leaves their offsets uncommitted, and ends the loop. Then the clients are closed.
 *
 * <p>A failed commit never ends the loop: {@link Committer} retries it with backoff. An attempt holds the loop for
 * {@link WorkerParts#commitTimeout()} at most (twice that if a shutdown wakes it mid-commit), so a held execution
 * starts at most that late in a coordinator outage. A fatal error (a fenced or unauthorized consumer, a
 * {@link VirtualMachineError} in a handler) ends it: logged at ERROR, kept as {@link #failure()}, the clients
 * closed, the uncommitted dispatches left for redelivery.
 *
 * <p>Runs on one thread; {@link #stop()}, {@link #interruptHandlers()} and {@link #abandon()} may be called
 * from any thread.
 */
public final class DispatchLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(DispatchLoop.class);
    private static final Duration BUSY_POLL_TIMEOUT = Duration.ofMillis(50);
    /**
     * How long a dispatch whose report was not acknowledged waits before it runs again: the results topic is
     * likely unreachable, and re-running at once would spin the handler (its idempotency guard answers a re-run
     * whose effect is done, but a handler without one repeats its effect) and flood the log until it is back.
     */
    static final Backoff RERUN_BACKOFF = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(30));

    private final Consumer<String, byte[]> consumer;
    private final Producer<String, byte[]> producer;
    private final AxTopics topics;
    private final Intake intake;
    private final ExecutionRunner runner;
    private final Lanes lanes;
    private final ExecutorService handlerThreads;
    private final Heartbeats heartbeats;
    private final Reports reports;
    private final ReportSink sink;
    private final Duration pollTimeout;
    private final Clock clock;
    private final OffsetTracker offsets = new OffsetTracker();
    private final Committer committer;
    private final WorkerMetrics metrics;
    private final Set<Execution> inFlight = new HashSet<>();
    private final Announcer announcer;
    private final ConcurrentLinkedQueue<Runnable> fromOtherThreads = new ConcurrentLinkedQueue<>();
    private volatile boolean stopping;
    private volatile boolean interruptRequested;
    private volatile boolean abandonRequested;
    private boolean interrupted;
    private volatile Throwable failure;

    public DispatchLoop(WorkerParts parts, Duration pollTimeout) {
        this.consumer = parts.consumer();
        this.producer = parts.producer();
        this.topics = parts.topics();
        this.runner = parts.runner();
        this.reports = parts.reports();
        this.sink = parts.sink();
        this.heartbeats = parts.heartbeats();
        this.handlerThreads = parts.handlerThreads();
        this.intake = new Intake(runner, reports, sink, parts.failUnknownJobTypes(), parts.dispatchCodec());
        this.lanes = new Lanes(parts.limits(), parts.backlogLimits(), handlerThreads, parts.clock(),
                parts.priorityAging().toMillis(), parts::ownerWeight, execution -> runner.run(execution, completion -> fromOtherThreads.add(() -> apply(completion))));
        this.pollTimeout = pollTimeout;
        this.clock = parts.clock();
        this.committer = new Committer(consumer, offsets, parts.clock(), parts.commitTimeout());
        this.metrics = parts.metrics();
        this.announcer = parts.announcer();
        metrics.lanes(lanes, parts.limits().keySet());
    }

    @Override
    public void run() {
        try {
            consumer.subscribe(List.of(topics.dispatch()), new Rebalance());
            while (!stopping) {
                accept(poll(nextPollTimeout()));
                applyCompletions();
                lanes.releaseDue();
                maybePauseOrResume();
                committer.maybeCommit();
                maybeAnnounce();
            }
            drain();
            if (announcer != null) {
                announcer.goodbye();
            }
        } catch (Throwable e) {
            failure = e;
            log.error("Worker loop stopped for good by a fatal error: this worker takes no more dispatches until it is "
                    + "rebuilt, and its uncommitted dispatches will be redelivered", e);
        } finally {
            closeClients();
        }
    }

    /** Stops fetching and starting handlers; the loop ends when the running ones are done. Thread-safe. */
    public void stop() {
        stopping = true;
        consumer.wakeup();
    }

    /** Interrupts the running handlers (after the grace period). Thread-safe. */
    public void interruptHandlers() {
        interruptRequested = true;
        consumer.wakeup();
    }

    /** Gives up on handlers that ignore interruption and ends the loop. Thread-safe. */
    public void abandon() {
        abandonRequested = true;
        consumer.wakeup();
    }

    /** What ended the loop on its own (not a shutdown), or null. Thread-safe. */
    public Throwable failure() {
        return failure;
    }

    /** Dispatches skipped because no handler here serves their job type (or reported, in strict mode). */
    public long skippedUnknownJobType() {
        return intake.skippedUnknownJobType();
    }

    /** Dispatch records that could not be decoded (reported FAILED when their headers allowed). */
    public long undecodable() {
        return intake.undecodable();
    }

    /** Closes the handler threads and both clients; called by the loop thread when it ends, or instead of it. */
    public void closeClients() {
        lanes.close();
        handlerThreads.shutdownNow();
        heartbeats.close();
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

    private void maybeAnnounce() {
        if (announcer != null) {
            announcer.maybeAnnounce(lanes, inFlight);
        }
    }

    /**
     * Long when idle (yet no later than the next announcement); short while work is in flight, and no later than when
     * the lanes release a held execution.
     */
    private Duration nextPollTimeout() {
        if (inFlight.isEmpty()) {
            if (announcer != null) {
                long untilAnnounceMs = announcer.nextAtMs() - clock.millis();
                return untilAnnounceMs < pollTimeout.toMillis() ? Duration.ofMillis(Math.max(0, untilAnnounceMs)) : pollTimeout;
            }
            return pollTimeout;
        }
        long untilReleaseMs = lanes.nextReleaseAtMs() - clock.millis();
        return untilReleaseMs < BUSY_POLL_TIMEOUT.toMillis()
                ? Duration.ofMillis(Math.max(0, untilReleaseMs)) : BUSY_POLL_TIMEOUT;
    }

    private ConsumerRecords<String, byte[]> poll(Duration timeout) {
        try {
            return consumer.poll(timeout);
        } catch (WakeupException e) {
            return ConsumerRecords.empty(); // stop(), interruptHandlers() or abandon(): the loop looks at the flags
        }
    }

    private void accept(ConsumerRecords<String, byte[]> records) {
        for (ConsumerRecord<String, byte[]> record : records) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            offsets.register(partition, record.offset());
            Runnable settled = () -> fromOtherThreads.add(() -> offsets.complete(partition, record.offset()));
            Execution execution = intake.take(record, this::cancel, settled);
            if (execution != null) {
                inFlight.add(execution);
                lanes.submit(execution);
            }
        }
    }

    private void cancel(String executionId) {
        inFlight.stream().filter(e -> e.executionId().equals(executionId)).forEach(e -> {
            log.info("Cancelling {}", e);
            e.cancel();
            lanes.release(e); // one held until its due time is answered now, not then
        });
    }

    private void applyCompletions() {
        for (Runnable task = fromOtherThreads.poll(); task != null; task = fromOtherThreads.poll()) {
            task.run();
        }
    }

    private void apply(Completion completion) {
        Execution execution = completion.execution();
        inFlight.remove(execution);
        switch (completion.kind()) {
            case DONE -> offsets.complete(execution.partition(), execution.offset());
            case NOT_STARTED -> log.debug("Leaving {} uncommitted", execution);
            case NOT_ACKNOWLEDGED -> maybeRunAgain(execution);
            case WORKER_ERROR -> {
                failure = new IllegalStateException("the handler of " + execution
                        + " threw a VirtualMachineError (logged above); the worker stopped");
                stopping = true;
                abandonRequested = true;
            }
        }
    }

    private void maybeRunAgain(Execution execution) {
        if (stopping || !offsets.isPending(execution.partition(), execution.offset())) {
            return;
        }
        Execution again = execution.again();
        long delayMs = RERUN_BACKOFF.delayMs(again.unacknowledgedRuns());
        log.warn("Running {} again in {} ms: a report of its run was not acknowledged ({} in a row)", execution,
                delayMs, again.unacknowledgedRuns());
        inFlight.add(again);
        lanes.submit(again, clock.millis() + delayMs);
    }

    /** Pauses what the lanes name (everything when stopping) and resumes the rest: see {@link Lanes} on backpressure. */
    private void maybePauseOrResume() {
        Set<TopicPartition> assigned = consumer.assignment();
        Set<TopicPartition> paused = consumer.paused();
        Set<TopicPartition> toPause = new HashSet<>(stopping ? assigned : lanes.partitionsToPause());
        toPause.retainAll(assigned);
        Set<TopicPartition> toResume = new HashSet<>(paused);
        toResume.removeAll(toPause);
        toPause.removeAll(paused);
        if (!toResume.isEmpty()) {
            log.debug("Resuming {}", toResume);
            consumer.resume(toResume);
        }
        if (!toPause.isEmpty()) {
            log.debug("Pausing {}", toPause);
            consumer.pause(toPause);
        }
        if (!toPause.isEmpty() || !toResume.isEmpty()) {
            metrics.pausedPartitions(consumer.paused().size());
        }
    }

    private void drain() {
        log.info("Stopping: {} handlers running; waiting dispatches are left for redelivery", inFlight.size());
        lanes.close();
        lanes.dropWaiting(e -> true).forEach(inFlight::remove);
        while (!inFlight.isEmpty() && !abandonRequested) {
            maybePauseOrResume();
            poll(BUSY_POLL_TIMEOUT);
            applyCompletions();
            committer.maybeCommit();
            maybeInterrupt();
        }
        for (Execution execution : inFlight) {
            log.error("Handler of {} ignored interruption; reporting it retryable, leaving it uncommitted", execution);
            sink.send(execution.taskId(), reports.failed(execution.executionId(), execution.task().getAttempt(), true,
                    "the worker shut down and the handler did not stop"), error -> { });
        }
        applyCompletions();
        committer.commitNow(null);
    }

    private void maybeInterrupt() {
        if (interruptRequested && !interrupted) {
            interrupted = true;
            log.warn("Grace period over: interrupting {} running handlers", inFlight.size());
            inFlight.forEach(Execution::interruptForShutdown);
        }
    }

    private void forget(Collection<TopicPartition> partitions) {
        offsets.forget(partitions);
        lanes.dropWaiting(e -> partitions.contains(e.partition())).forEach(inFlight::remove);
    }

    /** Runs inside poll(), on the loop thread. */
    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            applyCompletions();
            committer.commitNow(partitions);
            forget(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            log.info("Assigned {}", partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            log.warn("Lost {} without a clean revocation; their unfinished dispatches will be redelivered", partitions);
            forget(partitions);
        }
    }
}
