package io.ax.app.internal.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.schema.TaskState;
import org.junit.jupiter.api.Test;

class StateMachineTest {

    @Test
    void shouldAllowExactlyTheTransitionsOfTheDesignTable() {
        assertThat(StateMachine.isLegal(null, TaskState.PENDING)).isTrue();
        assertThat(StateMachine.isLegal(TaskState.PENDING, TaskState.TRIGGERED)).isTrue();
        assertThat(StateMachine.isLegal(TaskState.TRIGGERED, TaskState.RUNNING)).isTrue();
        assertThat(StateMachine.isLegal(TaskState.RUNNING, TaskState.SUCCESS)).isTrue();
        assertThat(StateMachine.isLegal(TaskState.RETRY_WAITING, TaskState.TRIGGERED)).isTrue();
        assertThat(StateMachine.isLegal(TaskState.TIMED_OUT, TaskState.RETRY_WAITING)).isTrue();

        assertThat(StateMachine.isLegal(null, TaskState.TRIGGERED)).isFalse();
        assertThat(StateMachine.isLegal(TaskState.PENDING, TaskState.RUNNING)).isFalse();
        assertThat(StateMachine.isLegal(TaskState.RETRY_WAITING, TaskState.PENDING)).isFalse();
        assertThat(StateMachine.isLegal(TaskState.RETRY_WAITING, TaskState.SUCCESS)).isFalse();
        assertThat(StateMachine.isLegal(TaskState.TIMED_OUT, TaskState.CANCELLED)).isFalse();
        for (TaskState to : TaskState.values()) {
            assertThat(StateMachine.isLegal(TaskState.SUCCESS, to)).isFalse();
            assertThat(StateMachine.isLegal(TaskState.FAILED, to)).isFalse();
            assertThat(StateMachine.isLegal(TaskState.CANCELLED, to)).isFalse();
        }
    }

    @Test
    void shouldRefuseAnIllegalTransition() {
        assertThatThrownBy(() -> StateMachine.requireLegal(TaskState.SUCCESS, TaskState.RUNNING))
                .isInstanceOf(IllegalStateException.class).hasMessage("illegal transition SUCCESS -> RUNNING");
    }
}
