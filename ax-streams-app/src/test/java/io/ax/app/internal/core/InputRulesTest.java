package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.InvalidRequestException;
import io.ax.schema.CancelRequest;
import io.ax.schema.DependencySignal;
import io.ax.schema.DependencySignalKind;
import io.ax.schema.ExecutionReport;
import io.ax.schema.ReportStatus;
import io.ax.schema.RetryRecord;
import io.ax.schema.SourceRecord;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Rules#requireValid(Input)}, {@link Rules#requireValid(String, DependencySignal)} and {@link Rules#requireValid(FlowGrant)}: the rules of an input's own fields, checked before its task is read; no Kafka. */
class InputRulesTest {
    private static final SourceRecord SOURCE = new SourceRecord("ax.results", 0, 1L);
    private static final SourceRecord GRANTS = new SourceRecord("ax.flow-grants", 0, 1L);

    @Test
    void shouldTakeAReportFromAttemptOneWithAnExecutionIdAndBoundedFields() {
        assertThatCode(() -> Rules.requireValid(report("e-1", 1, "w", "half"))).doesNotThrowAnyException();
        assertRefused(report("e-1", 0, null, null), "attempt", "attempt must be >= 1: 0");
        assertRefused(report("", 1, null, null), "executionId", "missing executionId");
        assertRefused(report("e-1", 1, "w".repeat(257), null), "workerId", "workerId is longer than 256 chars: ");
        assertRefused(report("e-1", 1, null, "p".repeat(4097)), "progress", "progress is longer than 4096 chars: ");
    }

    @Test
    void shouldTakeARetryRecordOfASecondAttemptOnAtMostTheLast() {
        assertThatCode(() -> Rules.requireValid(retry(2, 1_000))).doesNotThrowAnyException();
        assertRefused(retry(1, 1_000), "attempt", "a retry's attempt must be between 2 and 101: 1");
        assertRefused(retry(102, 1_000), "attempt", "a retry's attempt must be between 2 and 101: 102");
        assertRefused(retry(2, -1), "nextAttemptAtMs", "nextAttemptAtMs must be between 1970-01-01T00:00:00Z and");
    }

    @Test
    void shouldTakeTheOutcomesTheDependencyProtocolKnows() {
        assertThatCode(() -> Rules.requireValid(outcome("PURGED", null))).doesNotThrowAnyException();
        assertThatCode(() -> Rules.requireValid(outcome("SKIPPED", 1_000L))).doesNotThrowAnyException();
        assertRefused(outcome("SKIPPED", null), "outcome", "NOTIFY outcome must be one of [SUCCESS, FAILED, CANCELLED, PURGED]: \"SKIPPED\"");
        assertRefused(outcome("PURGED", 1_000L), "outcome", "NOTIFY outcome must be one of [SUCCESS, FAILED, CANCELLED, PURGED]: \"PURGED\"");
        assertRefused(outcome(null, null), "outcome", "NOTIFY outcome must be one of");
    }

    @Test
    void shouldTakeADependencySignalKeyedByTheTaskWhosePartitionTakesIt() {
        assertThatCode(() -> Rules.requireValid("down", signal(DependencySignalKind.NOTIFY, "up", "down"))).doesNotThrowAnyException();
        assertThatCode(() -> Rules.requireValid("up", signal(DependencySignalKind.SUBSCRIBE, "up", "down"))).doesNotThrowAnyException();
        assertThatCode(() -> Rules.requireValid("up", signal(DependencySignalKind.UNSUBSCRIBE, "up", "down"))).doesNotThrowAnyException();
        assertSignalRefused("up", signal(DependencySignalKind.NOTIFY, "up", "down"), "taskId", "NOTIFY must be keyed by \"down\", not \"up\"");
        assertSignalRefused("down", signal(DependencySignalKind.SUBSCRIBE, "up", "down"), "taskId",
                "SUBSCRIBE must be keyed by \"up\", not \"down\"");
        assertSignalRefused("down", signal(DependencySignalKind.UNSUBSCRIBE, "up", "down"), "taskId",
                "UNSUBSCRIBE must be keyed by \"up\", not \"down\"");
    }

    @Test
    void shouldRefuseADependencySignalWhoseTaskIdsAreNotTaskIds() {
        assertSignalRefused("down", signal(DependencySignalKind.NOTIFY, "", "down"), "taskId", "missing taskId (the record key)");
        assertSignalRefused("up", signal(DependencySignalKind.SUBSCRIBE, "up", "x".repeat(257)), "taskId",
                "taskId is longer than 256 chars: 257");
        assertSignalRefused("up", signal(DependencySignalKind.SUBSCRIBE, "up", "d\u0000"), "taskId", "taskId contains control characters");
    }

    @Test
    void shouldBoundTheReasonOfARequest() {
        assertThatCode(() -> Rules.requireValid(new Input.Cancel("t", CancelRequest.newBuilder().setReason("r".repeat(1024)).build(), SOURCE)))
                .doesNotThrowAnyException();
        assertRefused(new Input.Cancel("t", CancelRequest.newBuilder().setReason("r".repeat(1025)).build(), SOURCE), "reason",
                "reason is longer than 1024 chars: ");
    }

    @Test
    void shouldTakeAGrantAHeldNoticeAndAnAdmissionAnswerAsTheInputsTheirTagsName() {
        assertThat(valid(new FlowGrant("e-1", 2, List.of("type:j", "owner:o"), 5))).isEqualTo(
                new Input.Granted("t", "e-1", 2, List.of("type:j", "owner:o"), GRANTS));
        assertThat(valid(FlowGrant.held("e-1", 2, "type:j", 5, "held: 2 of 2"))).isEqualTo(
                new Input.GateHeld("t", "e-1", 2, "type:j", "held: 2 of 2", GRANTS));
        assertThat(valid(FlowGrant.answer("t#0", List.of("live:owner:o"), 5, true, "1 of 2"))).isEqualTo(
                new Input.Admission("t", "t#0", "live:owner:o", true, "1 of 2", GRANTS));
        assertThat(valid(FlowGrant.answer("t#0", List.of("live:owner:o"), 5, false, "2 of 2"))).isEqualTo(
                new Input.Admission("t", "t#0", "live:owner:o", false, "2 of 2", GRANTS));
    }

    @Test
    void shouldRefuseAGrantWithoutItsIdsOrWithATagTheGatesNeverWrite() {
        assertGrantRefused(new FlowGrant(null, 1, List.of("type:j"), 0), null, "grant lacks its executionId or gates");
        assertGrantRefused(new FlowGrant("e-1", 1, List.of(), 0), null, "grant lacks its executionId or gates");
        assertGrantRefused(new FlowGrant("e-1", 1, null, 0), null, "grant lacks its executionId or gates");
        assertGrantRefused(new FlowGrant("e-1", 1, Arrays.asList("type:j", null), 0), null, "grant lacks its executionId or gates");
        assertGrantRefused(new FlowGrant("e-1", 1, List.of("type:j"), 0, null, "why", "WAIT"), "notice",
                "grant notice must be HELD, with a reason and no admission: \"WAIT\"");
        assertGrantRefused(new FlowGrant("e-1", 1, List.of("type:j"), 0, null, null, FlowGrant.HELD), "notice",
                "grant notice must be HELD, with a reason and no admission: \"HELD\"");
        assertGrantRefused(new FlowGrant("e-1", 1, List.of("type:j"), 0, FlowGrant.ADMITTED, "why", FlowGrant.HELD), "notice",
                "grant notice must be HELD, with a reason and no admission: \"HELD\"");
        assertGrantRefused(new FlowGrant("t#0", 0, List.of("live:owner:o"), 0, "MAYBE", "why", null), "admission",
                "grant admission must be ADMITTED or REFUSED: \"MAYBE\"");
    }

    private static Input valid(FlowGrant grant) {
        Rules.requireValid(grant);
        return grant.input("t", GRANTS);
    }

    private static void assertGrantRefused(FlowGrant grant, String field, String message) {
        assertThatThrownBy(() -> Rules.requireValid(grant)).isInstanceOf(InvalidRequestException.class)
                .hasMessage(message).extracting(e -> ((InvalidRequestException) e).field()).isEqualTo(field);
    }

    private static void assertRefused(Input input, String field, String messageStart) {
        assertThatThrownBy(() -> Rules.requireValid(input)).isInstanceOf(InvalidRequestException.class)
                .hasMessageStartingWith(messageStart).extracting(e -> ((InvalidRequestException) e).field()).isEqualTo(field);
    }

    private static void assertSignalRefused(String key, DependencySignal signal, String field, String message) {
        assertThatThrownBy(() -> Rules.requireValid(key, signal)).isInstanceOf(InvalidRequestException.class)
                .hasMessage(message).extracting(e -> ((InvalidRequestException) e).field()).isEqualTo(field);
    }

    private static DependencySignal signal(DependencySignalKind kind, String upstream, String dependent) {
        return DependencySignal.newBuilder().setKind(kind).setUpstream(upstream).setDependent(dependent)
                .setOutcome(kind == DependencySignalKind.NOTIFY ? "SUCCESS" : null).setAtMs(0).build();
    }

    private static Input report(String executionId, int attempt, String workerId, String progress) {
        return new Input.Report("t", ExecutionReport.newBuilder().setExecutionId(executionId).setAttempt(attempt)
                .setStatus(ReportStatus.HEARTBEAT).setWorkerId(workerId).setProgress(progress).build(), SOURCE);
    }

    private static Input retry(int attempt, long nextAttemptAtMs) {
        return new Input.RetryLogged("t", RetryRecord.newBuilder().setExecutionId("e-1").setAttempt(attempt)
                .setNextAttemptAtMs(nextAttemptAtMs).setBackoffMs(1).setJobType("j").build(), SOURCE);
    }

    private static Input outcome(String outcome, Long nominalAtMs) {
        return new Input.DependencyOutcome("t", "up", outcome, "e-1", nominalAtMs, SOURCE);
    }
}
