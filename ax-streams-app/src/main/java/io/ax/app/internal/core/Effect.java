package io.ax.app.internal.core;

import io.ax.schema.DispatchTask;
import io.ax.schema.RetryRecord;
import io.ax.schema.StateChange;

/**
 * One thing a {@link Decision} asks the adapter to do, in order. Each is self-contained (it names its task), so
 * effects of many decisions could be applied as one batch.
 */
public sealed interface Effect {
    /** Set a timer, durably (the timer index) and in the wheel when it is near. */
    record SetTimer(String taskId, long dueAtMs, int priority, TimerKind kind) implements Effect {
    }

    /** Give up a timer that must not take effect; whenever it still fires, it fires stale. */
    record UnsetTimer(String taskId, long dueAtMs, TimerKind kind) implements Effect {
    }

    /**
     * Publish the calendar {@code name} to the calendars topic: {@code request}, the accepted calendar request, or a
     * tombstone when null (a delete). It concerns no task ({@link CalendarRules}).
     */
    record PublishCalendar(String name, io.ax.schema.CalendarRequest request) implements Effect {
    }

    /** Write the ACCEPTED line of a calendar request to the state topic, with its {@code reason} and {@code source}. */
    record CalendarAccepted(String name, String reason, io.ax.schema.SourceRecord source) implements Effect {
    }

    /** Write a RUN or CANCEL record to the dispatch topic. */
    record Dispatch(DispatchTask task) implements Effect {
    }

    /**
     * Write a state change to the state topic. {@code code} says why an IGNORED or REJECTED event happened (null for
     * the others), for metrics.
     */
    record Event(StateChange change, EventCode code) implements Effect {
    }

    /** Write the RETRY_WAITING log record the next attempt is timed from. */
    record Retry(String taskId, RetryRecord record) implements Effect {
    }

    /** Write a flow-control message to the flow topic, keyed by its gate (topology-docs/FLOW-CONTROL.md). */
    record Flow(FlowMessage message) implements Effect {
    }

    /** Write a failed execution to the dead-letter topic. */
    record DeadLetter(io.ax.schema.DeadLetter letter) implements Effect {
    }

    /**
     * Keep {@code dependent} as a subscriber of this partition's task {@code upstream}: of every occurrence, or of its
     * final state ({@link DependencyRules#subscription}).
     */
    record KeepSubscriber(String upstream, String dependent, boolean everyOccurrence) implements Effect {
    }

    /** {@code dependent} is a subscriber of this partition's task {@code upstream} no more. */
    record ForgetSubscriber(String upstream, String dependent, boolean everyOccurrence) implements Effect {
    }

    /**
     * Write {@code signal} to ax.deps, keyed by {@code key}, as it is: a dependent's SUBSCRIBE or UNSUBSCRIBE keyed by its
     * upstream ({@link DependencySignals#subscribe}, {@link DependencySignals#unsubscribe}), or an upstream's NOTIFY
     * answering a new subscriber at once, keyed by the dependent.
     */
    record Signal(String key, io.ax.schema.DependencySignal signal) implements Effect {
        /** Whether the record is of {@code kind}. */
        public boolean is(io.ax.schema.DependencySignalKind kind) {
            return signal.getKind() == kind;
        }
    }

    /**
     * A sweep over the final-state subscribers of this partition's task {@code upstream} is owed ({@link
     * DependencyRules#finished}: it ended and has subscribers; {@link DependencyRules#purged}: it was purged and they go).
     * A task nobody waits for never gets one.
     */
    record OweSweep(String upstream, Sweep sweep) implements Effect {
    }

    /**
     * A sweep of one occurrence's outcome over the periodic subscribers of this partition's task {@code upstream} is owed
     * ({@link DependencyRules#occurrenceEnded}); it replaces one still going out.
     */
    record OweOccurrenceSweep(String upstream, OccurrenceSweep sweep) implements Effect {
    }

    /**
     * This partition's task {@code upstream} was purged at {@code purgedAtMs}: its tombstone answers later subscribers
     * PURGED until it expires ({@link DependencyRules#purged}).
     */
    record LeaveTombstone(String upstream, long purgedAtMs) implements Effect {
    }

    /**
     * {@code upstream}'s tombstone, left at {@code purgedAtMs}, goes: a schedule request was accepted under its id, so the
     * tasks that wait for the new task are not answered PURGED ({@link DependencyRules#scheduledAgain}).
     */
    record ForgetTombstone(String upstream, long purgedAtMs) implements Effect {
    }
}
