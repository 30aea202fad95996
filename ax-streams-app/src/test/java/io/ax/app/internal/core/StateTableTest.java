package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.schema.ReportStatus;
import io.ax.schema.TaskState;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every row of the state table, walked through the pure rules: the inputs that lead a task to {@code from}, then
 * the one input that must move it to {@code to}. A table row without a walk here (or a walk the rules no longer
 * take) fails {@link #shouldWalkEveryRowOfTheTable}.
 */
class StateTableTest {
    private static final Set<String> WALKED = new HashSet<>();
    private static final String ONE_SHOT = "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":1000,\"maxRetries\":1}";
    private static final String LATER = "{\"jobType\":\"j\",\"delayMs\":3600000,\"timeoutMs\":1000,\"maxRetries\":1}";
    private static final String AFTER = "{\"jobType\":\"j\",\"after\":[{\"taskId\":\"a\",\"on\":\"SUCCESS\"}]}";
    private static final String NO_RETRY = "{\"jobType\":\"j\",\"delayMs\":0,\"timeoutMs\":1000,\"maxRetries\":0}";

    private static Arguments row(TaskState from, TaskState to, String request, Function<CoreDriver, Decision> walk) {
        return Arguments.of(from, to, request, walk);
    }

    private static Decision fired(CoreDriver ax) {
        return ax.fire(TimerKind.OCCURRENCE).orElseThrow();
    }

    private static Decision running(CoreDriver ax) {
        fired(ax);
        return ax.report(ReportStatus.STARTED, true);
    }

    private static Decision retryWaiting(CoreDriver ax) {
        fired(ax);
        return ax.report(ReportStatus.FAILED, true);
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                row(null, TaskState.PENDING, ONE_SHOT, ax -> null), // the schedule request itself is the step
                row(null, TaskState.WAITING, AFTER, ax -> null),
                row(TaskState.WAITING, TaskState.PENDING, AFTER, ax -> ax.dependencyOutcome("a", "SUCCESS")),
                row(TaskState.WAITING, TaskState.CANCELLED, AFTER, ax -> ax.dependencyOutcome("a", "FAILED")),
                row(TaskState.PENDING, TaskState.TRIGGERED, ONE_SHOT, StateTableTest::fired),
                row(TaskState.PENDING, TaskState.TRIGGERED, LATER, CoreDriver::trigger), // run now, an hour early by request
                row(TaskState.PENDING, TaskState.CANCELLED, ONE_SHOT, CoreDriver::cancel),
                row(TaskState.TRIGGERED, TaskState.RUNNING, ONE_SHOT, StateTableTest::running),
                row(TaskState.TRIGGERED, TaskState.SUCCESS, ONE_SHOT, ax -> { fired(ax); return ax.report(ReportStatus.SUCCEEDED, true); }),
                row(TaskState.TRIGGERED, TaskState.RETRY_WAITING, ONE_SHOT, StateTableTest::retryWaiting),
                row(TaskState.TRIGGERED, TaskState.FAILED, ONE_SHOT, ax -> { fired(ax); return ax.report(ReportStatus.FAILED, false); }),
                row(TaskState.TRIGGERED, TaskState.TIMED_OUT, ONE_SHOT, ax -> { fired(ax); return ax.fire(TimerKind.TIMEOUT).orElseThrow(); }),
                row(TaskState.TRIGGERED, TaskState.CANCELLED, ONE_SHOT, ax -> { fired(ax); return ax.cancel(); }),
                row(TaskState.RUNNING, TaskState.SUCCESS, ONE_SHOT, ax -> { running(ax); return ax.report(ReportStatus.SUCCEEDED, true); }),
                row(TaskState.RUNNING, TaskState.RETRY_WAITING, ONE_SHOT, ax -> { running(ax); return ax.report(ReportStatus.FAILED, true); }),
                row(TaskState.RUNNING, TaskState.FAILED, ONE_SHOT, ax -> { running(ax); return ax.report(ReportStatus.FAILED, false); }),
                row(TaskState.RUNNING, TaskState.TIMED_OUT, ONE_SHOT, ax -> { running(ax); return ax.fire(TimerKind.TIMEOUT).orElseThrow(); }),
                row(TaskState.RUNNING, TaskState.CANCELLED, ONE_SHOT, ax -> { running(ax); return ax.cancel(); }),
                row(TaskState.TIMED_OUT, TaskState.RETRY_WAITING, ONE_SHOT, ax -> { fired(ax); return ax.fire(TimerKind.TIMEOUT).orElseThrow(); }),
                row(TaskState.TIMED_OUT, TaskState.FAILED, NO_RETRY, ax -> { fired(ax); return ax.fire(TimerKind.TIMEOUT).orElseThrow(); }),
                row(TaskState.RETRY_WAITING, TaskState.TRIGGERED, ONE_SHOT, ax -> {
                    retryWaiting(ax);
                    ax.deliverRetry().orElseThrow();
                    return ax.fire(TimerKind.RETRY).orElseThrow();
                }),
                row(TaskState.RETRY_WAITING, TaskState.CANCELLED, ONE_SHOT, ax -> { retryWaiting(ax); return ax.cancel(); }));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("rows")
    void shouldMoveTheTaskAlongEachRow(TaskState from, TaskState to, String request, Function<CoreDriver, Decision> walk) {
        CoreDriver ax = new CoreDriver();
        Decision accepted = ax.schedule(request);
        Decision last = from == null ? accepted : walk.apply(ax);
        List<String> transitions = CoreDriver.events(last).stream().map(e -> e.getFrom() + " -> " + e.getTo()).toList();
        assertThat(transitions).contains(from + " -> " + to);
        assertThat(StateMachine.isLegal(from, to)).isTrue();
        WALKED.add(from + " -> " + to);
    }

    @AfterAll
    static void shouldWalkEveryRowOfTheTable() {
        Set<String> table = new HashSet<>();
        table.add(null + " -> " + TaskState.PENDING);
        table.add(null + " -> " + TaskState.WAITING);
        StateMachine.table().forEach((from, targets) -> targets.forEach(to -> table.add(from + " -> " + to)));
        assertThat(WALKED).as("every row of the state table is walked").isEqualTo(table);
    }
}
