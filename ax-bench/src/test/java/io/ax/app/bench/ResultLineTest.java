package io.ax.app.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultLineTest {
    @Test
    void shouldPrintScenarioAndNFirstThenKeysInOrderWithIntegersOrDecimals() {
        ResultLine line = ResultLine.of("burst", 1_000_000).add("fires_per_s", 12345.678).add("p99_ms", 42L)
                .add("ratio_vs_raw", 0.25).add("early", 0L);

        assertThat(line.toString())
                .isEqualTo("RESULT scenario=burst n=1000000 fires_per_s=12345.7 p99_ms=42 ratio_vs_raw=0.25 early=0");
    }

    @Test
    void shouldUseADotWhateverTheDefaultLocale() {
        assertThat(ResultLine.of("raw", 1).add("produce_per_s", 12.05).toString()).endsWith("produce_per_s=12.1")
                .doesNotContain(",");
    }

    @Test
    void shouldKeepTwoDecimalsBelowTenSoARatioIsNotRoundedAway() {
        assertThat(ResultLine.of("ingest", 1).add("ratio_vs_raw", 0.455).add("resume_s", 7.64).toString())
                .endsWith("ratio_vs_raw=0.46 resume_s=7.64");
    }

    @Test
    void shouldParseWhatItPrints() {
        ResultLine line = ResultLine.of("steady", 60_000).add("dispatch_p99_ms", 120L).add("p50_ms", 8L);

        Map<String, String> parsed = ResultLine.parse(line.toString());

        assertThat(parsed).containsExactly(Map.entry("scenario", "steady"), Map.entry("n", "60000"),
                Map.entry("dispatch_p99_ms", "120"), Map.entry("p50_ms", "8"));
    }

    @Test
    void shouldRefuseKeysThatWouldBreakTheLine() {
        assertThatThrownBy(() -> ResultLine.of("raw", 1).add("two words", 1L)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResultLine.of("raw", 1).add("a=b", 1L)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResultLine.of("raw", 1).add("n", 1L)).hasMessageContaining("duplicate key: n");
        assertThatThrownBy(() -> ResultLine.of("raw", 1).add("rate", Double.NaN)).hasMessageContaining("finite");
    }

    @Test
    void shouldRefuseLinesThatAreNotResults() {
        assertThatThrownBy(() -> ResultLine.parse("[bench 1.0s] raw: acked 5")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldMakeAnyTextAWordTheLineTakes() {
        assertThat(ResultLine.word("ax.dispatch-2:17:3,ax tasks/0")).isEqualTo("ax.dispatch-2:17:3,ax_tasks_0");
        assertThat(ResultLine.word("")).isEqualTo("none");
        assertThat(ResultLine.of("chaos", 1).add("stuck_open_txn", ResultLine.word("a b")).values())
                .containsEntry("stuck_open_txn", "a_b");
    }
}
