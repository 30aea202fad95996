package io.ax.app.internal.core;

import io.ax.schema.AdoptRequest;
import io.ax.schema.CancelRequest;
import io.ax.schema.ExecutionReport;
import io.ax.schema.PauseRequest;
import io.ax.schema.ReplayRequest;
import io.ax.schema.ResumeRequest;
import io.ax.schema.RetryRecord;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.TriggerRequest;

/**
 * What {@link Rules#decide} decides about: one decoded input record about a task, or one of its timers coming
 * due. Inputs from topics carry where they were read ({@code source}), for IGNORED and REJECTED events.
 */
public sealed interface Input {
    String taskId();

    /** Where the input was read; null for a timer. */
    SourceRecord source();

    /**
     * What kind of input this is, as the metrics and logs name it ({@code schedule}, {@code cancel}, {@code report},
     * {@code timer} ...): a name for people, never a branch for code (which tests the type).
     */
    String label();

    /** A request from a producer or operator (counted as accepted when it is not refused), not a report or a timer. */
    sealed interface Request extends Input {
    }

    /** A schedule request, with the timestamp of its record (a delay counts from it). */
    record Schedule(String taskId, ScheduleRequest request, long recordTimestampMs, SourceRecord source) implements Request {
        @Override
        public String label() {
            return "schedule";
        }
    }

    record Cancel(String taskId, CancelRequest request, SourceRecord source) implements Request {
        @Override
        public String label() {
            return "cancel";
        }
    }

    record Replay(String taskId, ReplayRequest request, SourceRecord source) implements Request {
        @Override
        public String label() {
            return "replay";
        }
    }

    /** Run a pending task now ({@code {"trigger":true}}), not a schedule's trigger. */
    record Trigger(String taskId, TriggerRequest request, SourceRecord source) implements Request {
        @Override
        public String label() {
            return "trigger";
        }
    }

    /** Pause a periodic task ({@code {"pause":true}}): no occurrence fires until it is resumed. */
    record Pause(String taskId, PauseRequest request, SourceRecord source) implements Request {
        @Override
        public String label() {
            return "pause";
        }
    }

    /** Resume a paused periodic task ({@code {"resume":true}}). */
    record Resume(String taskId, ResumeRequest request, SourceRecord source) implements Request {
        @Override
        public String label() {
            return "resume";
        }
    }

    /**
     * A calendar request, keyed by the calendar's name ({@code taskId} here). It concerns no task: the adapter decides it
     * with no task read ({@link CalendarRules}).
     */
    record Calendar(String taskId, io.ax.schema.CalendarRequest request, SourceRecord source) implements Request {
        @Override
        public String label() {
            return "calendar";
        }
    }

    /** A task handed over from another deployment by {@code ./ax migrate}, as it stood there. */
    record Adopt(String taskId, AdoptRequest request, SourceRecord source) implements Request {
        @Override
        public String label() {
            return "adopt";
        }
    }

    /** A worker's report on an execution. */
    record Report(String taskId, ExecutionReport report, SourceRecord source) implements Input {
        @Override
        public String label() {
            return "report";
        }
    }

    /** The RETRY_WAITING log read back from the retry topic. */
    record RetryLogged(String taskId, RetryRecord retry, SourceRecord source) implements Input {
        @Override
        public String label() {
            return "retry";
        }
    }

    /**
     * A flow-control grant read back from the grants topic: every gate of {@code gates} holds a slot for the execution's
     * attempt (topology-docs/FLOW-CONTROL.md).
     */
    record Granted(String taskId, String executionId, int attempt, java.util.List<String> gates, SourceRecord source)
            implements Input {
        @Override
        public String label() {
            return "grant";
        }
    }

    /**
     * A gate's notice that it holds the execution's attempt (no slot free, or others ahead), with the reason and the
     * count: written as the execution's held event, so it is in the task's history as on the state topic.
     */
    record GateHeld(String taskId, String executionId, int attempt, String gate, String reason, SourceRecord source)
            implements Input {
        @Override
        public String label() {
            return "grant";
        }
    }

    /**
     * An owner live gate's answer to the task's ADMIT, read back from the grants topic (topology-docs/FLOW-CONTROL.md):
     * the admission slot {@code admissionId} at {@code gate} was given ({@code admitted}) or refused (the owner is at its
     * maxLiveTasks); {@code reason} states the count.
     */
    record Admission(String taskId, String admissionId, String gate, boolean admitted, String reason, SourceRecord source)
            implements Input {
        @Override
        public String label() {
            return "grant";
        }
    }

    /**
     * The final state of a task this one waits for ({@code after}), reported by that task's partition over ax.deps:
     * SUCCESS, FAILED, CANCELLED, or PURGED (purged before this one asked).
     */
    /** {@code nominalAtMs}: for a periodic dependent, the nominal time of the upstream occurrence reported; else null. */
    record DependencyOutcome(String taskId, String upstream, String outcome, String executionId, Long nominalAtMs,
                             SourceRecord source) implements Input {
        public DependencyOutcome(String taskId, String upstream, String outcome, String executionId, SourceRecord source) {
            this(taskId, upstream, outcome, executionId, null, source);
        }

        @Override
        public String label() {
            return "dependency";
        }
    }

    /**
     * A SUBSCRIBE or UNSUBSCRIBE read from ax.deps, keyed by this partition's task that is waited for ({@code taskId}, the
     * signal's upstream): decided by {@link DependencyRules#subscription}, on the upstream's side; it changes no task.
     */
    record Subscription(String taskId, io.ax.schema.DependencySignal signal, SourceRecord source) implements Input {
        @Override
        public String label() {
            return "subscription";
        }
    }

    /** A timer of the task came due (it may be stale: the task moved on since it was set). */
    record TimerFired(String taskId, TimerKind kind, long dueAtMs) implements Input {
        @Override
        public SourceRecord source() {
            return null;
        }

        @Override
        public String label() {
            return "timer";
        }
    }
}
