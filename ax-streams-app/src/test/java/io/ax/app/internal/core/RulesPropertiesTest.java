package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.DispatchTask;
import io.ax.schema.ReportStatus;
import io.ax.schema.RetryRecord;
import io.ax.schema.StoredExecution;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

/**
 * The rules under random sequences of inputs (schedules of every trigger, replaces, cancels, replays, run-now triggers, reports of
 * every status, current and stale, retry records read back, timers firing, time passing). Whatever the order,
 * with strict settings (an illegal transition throws):
 * <ul>
 *   <li>never an illegal transition;</li>
 *   <li>never a RUN dispatch before its due time;</li>
 *   <li>never two RUN dispatches of one (executionId, attempt);</li>
 *   <li>every task that is not finished has a timer (or a retry record on its way) that will decide it, and a
 *       finished one has its purge timer.</li>
 * </ul>
 */
class RulesPropertiesTest {
    enum Action {
        SCHEDULE_ONE_SHOT, SCHEDULE_LATER, SCHEDULE_EVERY, SCHEDULE_REPLACE, CANCEL, REPLAY, TRIGGER,
        STARTED, HEARTBEAT, SUCCEEDED, FAILED_RETRYABLE, FAILED_FATAL, STALE_REPORT,
        DELIVER_RETRY, FIRE_EARLIEST, FIRE_EARLIEST_AGAIN, ADVANCE,
        // Reach the shapes of the timer derivation (ArmedTimers, checked by CoreDriver after every decision):
        PAUSE, RESUME, ADVANCE_LONG, SCHEDULE_CATCH_UP, SCHEDULE_QUEUE_ONE, SCHEDULE_UPDATE, ADMIT, REFUSE
    }

    @Property(tries = 400)
    void shouldKeepTheInvariantsWhateverTheInputs(@ForAll @Size(min = 1, max = 120) List<Action> actions) {
        run(new CoreDriver(), actions);
    }

    /** The same, with the owner's live tasks under a quota: a new task awaits admission, unarmed, until its gate answers. */
    @Property(tries = 200)
    void shouldKeepTheInvariantsUnderAnOwnerQuota(@ForAll @Size(min = 1, max = 120) List<Action> actions) {
        run(new CoreDriver(new FlowLimits() {
            @Override
            public List<String> gatesFor(String jobType, String owner) {
                return List.of();
            }

            @Override
            public Integer maxLiveTasks(String owner) {
                return 1;
            }
        }), actions);
    }

    private static void run(CoreDriver ax, List<Action> actions) {
        Set<String> runs = new HashSet<>();
        int seen = 0;
        for (Action action : actions) {
            act(ax, action);
            List<DispatchTask> dispatches = ax.runDispatches();
            for (DispatchTask run : dispatches.subList(seen, dispatches.size())) {
                assertThat(run.getDueAtMs()).as("RUN not before its due time").isLessThanOrEqualTo(run.getFiredAtMs());
                assertThat(runs.add(run.getExecutionId() + "/" + run.getAttempt()))
                        .as("one RUN per (executionId, attempt): %s", run.getExecutionId()).isTrue();
            }
            seen = dispatches.size();
            assertDecidedByATimer(ax);
        }
    }

    private static void act(CoreDriver ax, Action action) {
        switch (action) {
            case SCHEDULE_ONE_SHOT -> ax.schedule("{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":700,\"maxRetries\":2,\"backoffMs\":300}");
            case SCHEDULE_LATER -> ax.schedule("{\"jobType\":\"j\",\"delayMs\":2000,\"timeoutMs\":500,\"maxRetries\":1}");
            case SCHEDULE_EVERY -> ax.schedule("{\"jobType\":\"j\",\"everyMs\":1000,\"timeoutMs\":1500,\"maxRetries\":1,\"backoffMs\":200}");
            case SCHEDULE_REPLACE -> ax.schedule("{\"jobType\":\"j\",\"delayMs\":100,\"timeoutMs\":600,\"ifExists\":\"REPLACE\"}");
            case CANCEL -> ax.cancel();
            case REPLAY -> ax.replay();
            case TRIGGER -> ax.trigger();
            case STARTED -> ax.report(ReportStatus.STARTED, true);
            case HEARTBEAT -> ax.report(ReportStatus.HEARTBEAT, true);
            case SUCCEEDED -> ax.report(ReportStatus.SUCCEEDED, true);
            case FAILED_RETRYABLE -> ax.report(ReportStatus.FAILED, true);
            case FAILED_FATAL -> ax.report(ReportStatus.FAILED, false);
            case STALE_REPORT -> ax.report("stale-execution", 1, ReportStatus.SUCCEEDED, true);
            case DELIVER_RETRY -> ax.deliverRetry();
            case FIRE_EARLIEST, FIRE_EARLIEST_AGAIN -> ax.fireEarliest();
            case ADVANCE -> ax.advanceMs(250);
            case ADVANCE_LONG -> ax.advanceMs(2_100); // past several occurrences: misfire and catch-up
            case PAUSE -> ax.pause();
            case RESUME -> ax.resume();
            case SCHEDULE_CATCH_UP -> ax.schedule("{\"jobType\":\"j\",\"owner\":\"o\",\"everyMs\":500,\"misfire\":\"FIRE_ALL\",\"timeoutMs\":1200,"
                    + "\"maxRetries\":1,\"backoffMs\":200}");
            case SCHEDULE_QUEUE_ONE -> ax.schedule("{\"jobType\":\"j\",\"owner\":\"o\",\"everyMs\":700,\"overlap\":\"QUEUE_ONE\",\"timeoutMs\":1500}");
            case SCHEDULE_UPDATE -> ax.schedule("{\"jobType\":\"j\",\"owner\":\"o\",\"everyMs\":1300,\"timeoutMs\":900,\"ifExists\":\"UPDATE\"}");
            case ADMIT -> ax.admission(true);
            case REFUSE -> ax.admission(false);
        }
    }

    private static void assertDecidedByATimer(CoreDriver ax) {
        StoredTask task = ax.task();
        if (task == null) {
            return;
        }
        Set<CoreDriver.Timer> timers = ax.timers();
        if (!Liveness.isLive(task)) {
            assertThat(timers).as("a finished task has its purge timer").contains(new CoreDriver.Timer(TimerKind.PURGE, task.getPurgeAtMs()));
            return;
        }
        boolean held = task.getPausedAtMs() != null || Admission.isAwaiting(task) || task.getCatchUpHeld();
        if (task.getNextDueAtMs() != null && !held) {
            assertThat(timers).as("a pending occurrence has its timer (unless paused, awaiting admission or caught up)")
                    .contains(new CoreDriver.Timer(TimerKind.OCCURRENCE, task.getNextDueAtMs()));
        }
        StoredExecution execution = task.getExecution();
        if (execution == null || !StateMachine.isInFlight(execution.getState())) {
            assertThat(task.getNextDueAtMs()).as("a live task without an execution in flight waits for an occurrence").isNotNull();
            return;
        }
        if (execution.getState() == TaskState.RETRY_WAITING) {
            if (execution.getRetryAtMs() != null) {
                assertThat(timers).contains(new CoreDriver.Timer(TimerKind.RETRY, execution.getRetryAtMs()));
            } else {
                assertThat(ax.retryLog()).as("the retry record is on its way").extracting(RetryRecord::getExecutionId)
                        .contains(execution.getExecutionId());
            }
        } else {
            assertThat(timers).as("an execution in flight has its timeout timer")
                    .contains(new CoreDriver.Timer(TimerKind.TIMEOUT, execution.getTimeoutAtMs()));
        }
    }
}
