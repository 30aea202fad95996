package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.codec.JsonForms;
import io.ax.schema.CancelRequest;
import io.ax.schema.DependencySignalKind;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.StoredTask;
import io.ax.schema.TaskState;
import io.ax.schema.TriggerRequest;
import io.ax.validation.ScheduleLimits;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The pure rules of owner live-task quotas ({@link Admission}): what a task does while it awaits its live gate's answer,
 * which the topology tests cannot stop at (there the gate answers within the same input).
 */
class AdmissionRulesTest {
    private static final String TASK = "t";
    private static final long T0 = 1_796_083_200_000L;
    private final Map<String, Integer> quotas = new HashMap<>(Map.of("acme", 2));
    private final Rules rules = new Rules(new RuleSettings(300_000, 1_000, 600_000, 604_800_000, 0, 60_000, ScheduleLimits.defaults(), true, true),
            CalendarLookup.NONE, new FlowLimits() {
                @Override
                public List<String> gatesFor(String jobType, String owner) {
                    return List.of();
                }

                @Override
                public Integer maxLiveTasks(String owner) {
                    return quotas.get(owner);
                }
            });
    private StoredTask task;
    private long offset = 10;

    private Decision decide(Input input) {
        Decision decision = rules.decide(task == null ? null : StoredTask.newBuilder(task).build(), input, T0);
        switch (decision.store()) {
            case SAVE -> task = decision.task();
            case DELETE, DISCARD -> task = null;
            case UNCHANGED -> { }
        }
        return decision;
    }

    private Decision schedule(String json) {
        return decide(new Input.Schedule(TASK, (ScheduleRequest) JsonForms.parseRequest(json.getBytes(StandardCharsets.UTF_8)), T0,
                new SourceRecord("ax.requests", 0, offset++)));
    }

    private Decision answer(String admissionId, boolean admitted) {
        return decide(new Input.Admission(TASK, admissionId, "live:owner:acme", admitted,
                "owner acme has " + (admitted ? 1 : 2) + " of 2 live tasks (maxLiveTasks)", new SourceRecord("ax.flow-grants", 0, offset++)));
    }

    private static List<StateChange> events(Decision decision) {
        return decision.effects().stream().filter(e -> e instanceof Effect.Event).map(e -> ((Effect.Event) e).change()).toList();
    }

    private static List<String> flow(Decision decision) {
        return decision.effects().stream().filter(e -> e instanceof Effect.Flow).map(e -> ((Effect.Flow) e).message())
                .map(m -> m.kind() + " " + m.gate() + " " + m.executionId()).toList();
    }

    private static boolean setsTimer(Decision decision) {
        return decision.effects().stream().anyMatch(e -> e instanceof Effect.SetTimer set && set.kind() == io.ax.app.internal.core.TimerKind.OCCURRENCE);
    }

    private static String line(StateChange change) {
        return change.getFrom() + "->" + change.getTo() + " " + change.getReason();
    }

    @Test
    void shouldStoreANewTaskOfAnOwnerWithAQuotaUnarmedAndAskItsLiveGate() {
        Decision accepted = schedule("{\"jobType\":\"email\",\"delayMs\":1000,\"owner\":\"acme\"}");
        assertThat(events(accepted)).extracting(AdmissionRulesTest::line).containsExactly(
                "null->PENDING awaiting admission: owner acme maxLiveTasks 2 (live:owner:acme); nothing is timed or dispatched until admitted");
        assertThat(flow(accepted)).containsExactly("ADMIT live:owner:acme t#10");
        assertThat(setsTimer(accepted)).as("not armed").isFalse();
        assertThat(task.getAdmissionSinceMs()).isEqualTo(T0);
        assertThat(Liveness.isLive(task)).isTrue();

        Decision admitted = answer("t#10", true);
        assertThat(setsTimer(admitted)).isTrue();
        assertThat(events(admitted)).extracting(AdmissionRulesTest::line).containsExactly(
                "PENDING->PENDING admitted by live:owner:acme after waiting 0 ms: owner acme has 1 of 2 live tasks (maxLiveTasks)");
        assertThat(task.getAdmissionSinceMs()).isNull();
        assertThat(task.getAdmissionGate()).isEqualTo("live:owner:acme");
        assertThat(flow(admitted)).isEmpty();
    }

    @Test
    void shouldRejectAndDiscardARefusedTask() {
        schedule("{\"jobType\":\"email\",\"delayMs\":1000,\"owner\":\"acme\"}");
        Decision refused = answer("t#10", false);
        assertThat(refused.store()).isEqualTo(Decision.Store.DISCARD);
        assertThat(events(refused)).singleElement().satisfies(e -> {
            assertThat(e.getTo()).isEqualTo(TaskState.REJECTED);
            assertThat(e.getReason()).startsWith("owner acme has 2 of 2 live tasks (maxLiveTasks): the task is rejected");
        });
        assertThat(flow(refused)).as("a refused ADMIT holds no slot").isEmpty();
        assertThat(setsTimer(refused)).isFalse();
    }

    @Test
    void shouldIgnoreADuplicateAndRefuseARunNowWhileAwaitingAdmission() {
        schedule("{\"jobType\":\"email\",\"delayMs\":1000,\"owner\":\"acme\"}");
        Decision duplicate = schedule("{\"jobType\":\"email\",\"delayMs\":1000,\"owner\":\"acme\"}");
        assertThat(events(duplicate)).extracting(AdmissionRulesTest::line)
                .containsExactly("null->IGNORED duplicate: a live task with this taskId exists (ifExists=KEEP); it awaits admission at live:owner:acme");
        assertThat(flow(duplicate)).isEmpty();
        Decision trigger = decide(new Input.Trigger(TASK, new TriggerRequest(null), new SourceRecord("ax.requests", 0, offset++)));
        assertThat(events(trigger)).extracting(AdmissionRulesTest::line).singleElement().asString()
                .contains("trigger: the task awaits admission at live:owner:acme");
        assertThat(trigger.effects()).noneMatch(e -> e instanceof Effect.Dispatch);
        assertThat(decide(new Input.TimerFired(TASK, io.ax.app.internal.core.TimerKind.OCCURRENCE, T0 + 1000)).effects()).isEmpty();
    }

    @Test
    void shouldLetAReplaceWhileAwaitingTakeOverTheAnswerAwaited() {
        schedule("{\"jobType\":\"email\",\"delayMs\":1000,\"owner\":\"acme\"}");
        Decision replaced = schedule("{\"jobType\":\"sms\",\"delayMs\":2000,\"owner\":\"acme\",\"ifExists\":\"REPLACE\"}");
        assertThat(flow(replaced)).as("the ADMIT already sent answers for the replacement too").isEmpty();
        assertThat(events(replaced)).extracting(StateChange::getTo).containsExactly(TaskState.CANCELLED, TaskState.PENDING);
        assertThat(events(replaced).get(0).getReason()).contains("(it was awaiting admission at live:owner:acme)");
        Decision admitted = answer("t#10", true);
        assertThat(setsTimer(admitted)).isTrue();
        assertThat(task.getRequest().getJobType()).isEqualTo("sms");
    }

    @Test
    void shouldReleaseTheSlotAskedForWhenCancelledWhileAwaitingAndIgnoreTheLateAnswer() {
        schedule("{\"jobType\":\"email\",\"delayMs\":1000,\"owner\":\"acme\"}");
        Decision cancelled = decide(new Input.Cancel(TASK, new CancelRequest("no"), new SourceRecord("ax.requests", 0, offset++)));
        assertThat(events(cancelled)).extracting(AdmissionRulesTest::line).containsExactly(
                "PENDING->CANCELLED cancelled: no (it was awaiting admission at live:owner:acme)");
        assertThat(flow(cancelled)).containsExactly("RELEASE live:owner:acme t#10");
        assertThat(task.getAdmissionGate()).isNull();
        Decision late = answer("t#10", true);
        assertThat(events(late)).extracting(StateChange::getTo).containsExactly(TaskState.IGNORED);
        assertThat(flow(late)).as("released once, by the cancel").isEmpty();
        assertThat(setsTimer(late)).isFalse();
    }

    @Test
    void shouldContinueTheAdmissionOfAReplacedTaskAndMoveItWhenTheOwnerChanges() {
        schedule("{\"jobType\":\"email\",\"delayMs\":1000,\"owner\":\"acme\"}");
        answer("t#10", true);
        Decision replaced = schedule("{\"jobType\":\"email\",\"delayMs\":5000,\"owner\":\"acme\",\"ifExists\":\"REPLACE\"}");
        assertThat(flow(replaced)).as("not re-admitted").isEmpty();
        assertThat(setsTimer(replaced)).isTrue();
        assertThat(task.getAdmissionId()).isEqualTo("t#10");

        quotas.put("other", 5);
        Decision moved = schedule("{\"jobType\":\"email\",\"delayMs\":5000,\"owner\":\"other\",\"ifExists\":\"REPLACE\"}");
        assertThat(flow(moved)).containsExactly("RELEASE live:owner:acme t#10", "ADMIT live:owner:other t#13");
        assertThat(setsTimer(moved)).isFalse();

        Decision unlimited = schedule("{\"jobType\":\"email\",\"delayMs\":5000,\"owner\":\"free\",\"ifExists\":\"REPLACE\"}");
        assertThat(flow(unlimited)).containsExactly("RELEASE live:owner:other t#13");
        assertThat(setsTimer(unlimited)).isTrue();
        assertThat(task.getAdmissionGate()).isNull();
    }

    @Test
    void shouldAwaitAdmissionWaitingBeforeATaskWithAfterBeginsToWait() {
        Decision accepted = schedule("{\"jobType\":\"email\",\"delayMs\":0,\"owner\":\"acme\",\"after\":[{\"taskId\":\"u\"}]}");
        assertThat(events(accepted)).extracting(e -> e.getFrom() + "->" + e.getTo()).containsExactly("null->WAITING");
        assertThat(accepted.effects()).noneMatch(e -> isSignal(e, DependencySignalKind.SUBSCRIBE) || e instanceof Effect.SetTimer);
        Decision admitted = answer("t#10", true);
        assertThat(events(admitted)).extracting(AdmissionRulesTest::line).singleElement().asString()
                .startsWith("WAITING->WAITING admitted by live:owner:acme after waiting 0 ms: owner acme has 1 of 2 live tasks (maxLiveTasks); waits for u (SUCCESS)");
        assertThat(admitted.effects()).anyMatch(e -> isSignal(e, DependencySignalKind.SUBSCRIBE));

        task = null;
        schedule("{\"jobType\":\"email\",\"delayMs\":0,\"owner\":\"acme\",\"after\":[{\"taskId\":\"u\"}]}");
        Decision cancelled = decide(new Input.Cancel(TASK, new CancelRequest(null), new SourceRecord("ax.requests", 0, offset++)));
        assertThat(events(cancelled)).extracting(e -> e.getFrom() + "->" + e.getTo()).containsExactly("WAITING->CANCELLED");
        assertThat(flow(cancelled)).containsExactly("RELEASE live:owner:acme t#12");
        assertThat(cancelled.effects()).noneMatch(e -> isSignal(e, DependencySignalKind.UNSUBSCRIBE));
    }

    @Test
    void shouldNotCountATaskLiveBeforeTheQuotaNorItsReplacement() {
        quotas.clear();
        schedule("{\"jobType\":\"email\",\"delayMs\":1000,\"owner\":\"acme\"}");
        assertThat(task.getAdmissionGate()).isNull();
        quotas.put("acme", 1);
        Decision replaced = schedule("{\"jobType\":\"email\",\"delayMs\":5000,\"owner\":\"acme\",\"ifExists\":\"REPLACE\"}");
        assertThat(flow(replaced)).isEmpty();
        assertThat(setsTimer(replaced)).isTrue();
        Decision cancelled = decide(new Input.Cancel(TASK, new CancelRequest(null), new SourceRecord("ax.requests", 0, offset++)));
        assertThat(flow(cancelled)).as("it holds no slot").isEmpty();
    }

    /** Whether {@code effect} writes an ax.deps record of {@code kind}. */
    private static boolean isSignal(Effect effect, DependencySignalKind kind) {
        return effect instanceof Effect.Signal signal && signal.is(kind);
    }
}
