package io.ax.app.internal.inputs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InputWatermarksTest {
    private final Map<String, Fetched> view = new HashMap<>();
    private final InputWatermarks inputs = new InputWatermarks((topic, partition) -> view.get(topic + "-" + partition), 3, 1_000,
            "requests", "results");

    @Test
    void shouldKnowNothingBeforeTheFirstPoll() {
        assertThat(inputs.readUpToMs(0, 50_000)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void shouldBeReadUpToThePollThatFoundThePartitionAtItsEndOnceEverythingHandedOverIsProcessed() {
        view.put("requests-3", new Fetched(0, 101, 40_000));
        assertThat(inputs.readUpToMs(0, 50_000)).as("offset 100 handed over, not processed").isEqualTo(Long.MIN_VALUE);
        inputs.processed(0, 99, 39_000);
        assertThat(inputs.readUpToMs(0, 50_000)).as("only what offset 99's timestamp proves").isEqualTo(39_000 - 1_000 - 1);
        inputs.processed(0, 100, 39_500);
        assertThat(inputs.readUpToMs(0, 50_000)).isEqualTo(40_000);
        assertThat(inputs.readUpToMs(0, 30_000)).as("never past now").isEqualTo(30_000);
        assertThat(inputs.readUpToMs(1, 50_000)).as("each input on its own").isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void shouldNotTrustAPollThatLeftRecordsBehind() {
        view.put("requests-3", new Fetched(5, -1, 40_000));
        assertThat(inputs.readUpToMs(0, 50_000)).isEqualTo(Long.MIN_VALUE);
        view.put("requests-3", new Fetched(-1, -1, 40_000));
        assertThat(inputs.readUpToMs(0, 50_000)).as("lag unknown").isEqualTo(Long.MIN_VALUE);
        view.put("requests-3", new Fetched(0, -1, 40_000));
        assertThat(inputs.readUpToMs(0, 50_000)).as("at the end, nothing ever handed over").isEqualTo(40_000);
    }

    @Test
    void shouldBeReadUpToJustBeforeTheLatestTimestampLessTheSkew() {
        view.put("results-3", new Fetched(10_000, 200, 40_000));
        inputs.processed(1, 7, 45_000);
        assertThat(inputs.readUpToMs(1, 50_000)).isEqualTo(45_000 - 1_000 - 1);
    }
}
