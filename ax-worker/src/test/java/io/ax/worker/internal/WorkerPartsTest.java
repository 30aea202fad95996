package io.ax.worker.internal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WorkerPartsTest {
    @Test
    void shouldNameTheFirstMissingPart() {
        assertThatThrownBy(() -> WorkerParts.builder().build())
                .isInstanceOf(NullPointerException.class)
                .hasMessage("consumer");
    }
}
