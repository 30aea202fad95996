package io.ax.app.internal.core;

import static io.ax.schema.TaskState.CANCELLED;
import static io.ax.schema.TaskState.FAILED;
import static io.ax.schema.TaskState.PENDING;
import static io.ax.schema.TaskState.RETRY_WAITING;
import static io.ax.schema.TaskState.RUNNING;
import static io.ax.schema.TaskState.SUCCESS;
import static io.ax.schema.TaskState.TIMED_OUT;
import static io.ax.schema.TaskState.TRIGGERED;
import static io.ax.schema.TaskState.WAITING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.schema.TaskState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link StateMachine} against the design's state table, written out below row by row as DESIGN.md has it
 * (not read from {@code StateMachine}): every (from, to) pair of states, legal or not, is checked, so adding,
 * dropping or moving one transition in the code fails here. The committed {@code topology-docs/STATE-MACHINE.md}
 * is checked against the same rows ({@code TopologyDocsTest} checks that it is generated from the code).
 */
class StateMachineTest {
    /** The rows of DESIGN.md's "Execution state machine" table: from any of these states, to that one. */
    private static final List<Row> DESIGN_ROWS = List.of(
            new Row(EnumSet.of(PENDING), TRIGGERED),                                   // due time reached
            new Row(EnumSet.of(TRIGGERED), RUNNING),                                   // worker reported STARTED
            new Row(EnumSet.of(TRIGGERED, RUNNING), SUCCESS),                          // worker reported SUCCEEDED
            new Row(EnumSet.of(TRIGGERED, RUNNING), RETRY_WAITING),                    // retryable failure, attempts left
            new Row(EnumSet.of(TIMED_OUT), RETRY_WAITING),                             // "TIMED_OUT (then RETRY_WAITING ...)"
            new Row(EnumSet.of(RETRY_WAITING), TRIGGERED),                             // backoff elapsed
            new Row(EnumSet.of(TRIGGERED, RUNNING), FAILED),                           // non-retryable, or attempts exhausted
            new Row(EnumSet.of(TIMED_OUT), FAILED),                                    // "TIMED_OUT (then ... or FAILED)"
            new Row(EnumSet.of(TRIGGERED, RUNNING), TIMED_OUT),                        // no report or heartbeat in time
            new Row(EnumSet.of(PENDING, RETRY_WAITING, TRIGGERED, RUNNING), CANCELLED), // cancel request
            // Issue 16 (topology-docs/WORKFLOWS.md): a task that waits for others.
            new Row(EnumSet.of(WAITING), PENDING),                                     // every condition met
            new Row(EnumSet.of(WAITING), CANCELLED));                                  // unmet for good, timed out, cancelled

    /** The states of an execution; REJECTED, IGNORED and SKIPPED are events about inputs, never a task's state. */
    private static final Set<TaskState> EXECUTION_STATES =
            EnumSet.of(PENDING, TRIGGERED, RUNNING, SUCCESS, RETRY_WAITING, FAILED, TIMED_OUT, CANCELLED, WAITING);

    private static final Path STATE_MACHINE_DOC = Path.of("..", "topology-docs", "STATE-MACHINE.md");

    private record Row(Set<TaskState> from, TaskState to) {
    }

    /** from → every state the design lets it move to; a final state maps to an empty set. */
    private static Map<TaskState, Set<TaskState>> designTable() {
        Map<TaskState, Set<TaskState>> table = new EnumMap<>(TaskState.class);
        EXECUTION_STATES.forEach(state -> table.put(state, EnumSet.noneOf(TaskState.class)));
        for (Row row : DESIGN_ROWS) {
            row.from().forEach(from -> table.get(from).add(row.to()));
        }
        return table;
    }

    private static boolean legalByDesign(TaskState from, TaskState to) {
        return from == null ? to == PENDING || to == WAITING : designTable().getOrDefault(from, Set.of()).contains(to);
    }

    /** Every (from, to) of all TaskState values, plus (new) → each: 12 × 11 pairs. */
    static Stream<Arguments> everyPair() {
        List<TaskState> froms = new ArrayList<>();
        froms.add(null);
        froms.addAll(Arrays.asList(TaskState.values()));
        return froms.stream().flatMap(from -> Arrays.stream(TaskState.values()).map(to -> Arguments.of(from, to)));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("everyPair")
    void shouldAllowATransitionExactlyWhenTheDesignTableHasIt(TaskState from, TaskState to) {
        boolean legal = legalByDesign(from, to);

        assertThat(StateMachine.isLegal(from, to)).as("%s -> %s legal", from, to).isEqualTo(legal);
        if (legal) {
            assertThatCode(() -> StateMachine.requireLegal(from, to)).doesNotThrowAnyException();
        } else {
            assertThatThrownBy(() -> StateMachine.requireLegal(from, to))
                    .isInstanceOf(IllegalStateException.class).hasMessage("illegal transition " + from + " -> " + to);
        }
    }

    @Test
    void shouldPublishTheTableItChecks() {
        assertThat(StateMachine.table()).isEqualTo(designTable());
    }

    @Test
    void shouldCallFinalExactlyTheStatesWithNoWayOut() {
        for (TaskState state : EXECUTION_STATES) {
            assertThat(StateMachine.isFinal(state)).as("isFinal(%s)", state).isEqualTo(designTable().get(state).isEmpty());
        }
    }

    @Test
    void shouldDocumentTheDesignTable() throws IOException {
        Map<String, Set<String>> documented = new HashMap<>();
        for (String line : Files.readAllLines(STATE_MACHINE_DOC, StandardCharsets.UTF_8)) {
            String[] cells = line.split("\\|");
            if (cells.length != 3 || !cells[0].isEmpty() || cells[1].isBlank() || cells[1].contains("from")
                    || cells[1].contains("---")) {
                continue;
            }
            String to = cells[2].strip();
            documented.put(cells[1].strip(), to.equals("(final)") ? Set.of() : new HashSet<>(List.of(to.split(",\\s*"))));
        }

        Map<String, Set<String>> expected = new HashMap<>();
        expected.put("(new)", Set.of(PENDING.name(), WAITING.name()));
        designTable().forEach((from, tos) -> expected.put(from.name(),
                new HashSet<>(tos.stream().map(TaskState::name).toList())));
        assertThat(documented).as("the table in %s", STATE_MACHINE_DOC).isEqualTo(expected);
    }
}
