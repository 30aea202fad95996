package io.ax.worker.internal;

import io.ax.schema.DispatchTask;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * One RUN dispatch from the moment it is polled until its reports are acknowledged: where it came from
 * (so its offset can be completed), the decoded task, and the thread running its handler (so a cancel signal
 * or shutdown can interrupt it).
 *
 * <p>Thread-safe: the poll loop cancels and interrupts, a handler thread attaches and detaches. The interrupt
 * is only ever sent to the thread while it runs this execution, never to a pooled thread that moved on.
 */
final class Execution {
    private final ConsumerRecord<String, byte[]> record;
    private final DispatchTask task;
    private final int unacknowledgedRuns;
    private Thread thread;
    private boolean cancelled;
    private boolean stopping;

    Execution(ConsumerRecord<String, byte[]> record, DispatchTask task) {
        this(record, task, 0);
    }

    private Execution(ConsumerRecord<String, byte[]> record, DispatchTask task, int unacknowledgedRuns) {
        this.record = record;
        this.task = task;
        this.unacknowledgedRuns = unacknowledgedRuns;
    }

    /** The same dispatch, to run again because a report of this run was not acknowledged. */
    Execution again() {
        return new Execution(record, task, unacknowledgedRuns + 1);
    }

    /** How many runs of this dispatch before this one ended with a report not acknowledged. */
    int unacknowledgedRuns() {
        return unacknowledgedRuns;
    }

    ConsumerRecord<String, byte[]> record() {
        return record;
    }

    TopicPartition partition() {
        return new TopicPartition(record.topic(), record.partition());
    }

    long offset() {
        return record.offset();
    }

    DispatchTask task() {
        return task;
    }

    String taskId() {
        return task.getTaskId();
    }

    String executionId() {
        return task.getExecutionId();
    }

    String jobType() {
        return task.getJobType();
    }

    synchronized void attach(Thread current) {
        thread = current;
        if (cancelled || stopping) {
            current.interrupt();
        }
    }

    /** Forgets the thread and clears an interrupt meant for this execution, so the pooled thread starts clean. */
    synchronized void detach() {
        thread = null;
        Thread.interrupted();
    }

    /** A cancel signal for this execution: flag it and interrupt its handler. */
    synchronized void cancel() {
        cancelled = true;
        interruptIfRunning();
    }

    synchronized boolean isCancelled() {
        return cancelled;
    }

    /** The worker is shutting down and its grace period ran out: interrupt the handler. */
    synchronized void interruptForShutdown() {
        stopping = true;
        interruptIfRunning();
    }

    synchronized boolean isStopping() {
        return stopping;
    }

    private void interruptIfRunning() {
        if (thread != null) {
            thread.interrupt();
        }
    }

    @Override
    public String toString() {
        return "taskId=" + taskId() + " executionId=" + executionId() + " attempt=" + task.getAttempt()
                + " at " + record.topic() + "-" + record.partition() + "@" + record.offset();
    }
}
