package io.ax.worker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResultTest {
    @Test
    void shouldDescribeSuccess() {
        assertThat(Result.success().isSuccess()).isTrue();
        assertThat(Result.success().isRetryable()).isFalse();
        assertThat(Result.success().message()).isNull();
    }

    @Test
    void shouldDescribeRetryableFailure() {
        Result result = Result.retryable("timeout");

        assertThat(result.isSuccess()).isFalse();
        assertThat(result.isRetryable()).isTrue();
        assertThat(result.message()).isEqualTo("timeout");
        assertThat(result).isEqualTo(Result.retryable("timeout")).hasToString("Result.retryable(timeout)");
    }

    @Test
    void shouldDescribeFatalFailure() {
        Result result = Result.fatal("bad payload");

        assertThat(result.isSuccess()).isFalse();
        assertThat(result.isRetryable()).isFalse();
        assertThat(result).isNotEqualTo(Result.retryable("bad payload")).hasToString("Result.fatal(bad payload)");
    }
}
