package io.ax.app.internal.timer;

import io.ax.app.internal.core.TimerKind;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FireDueTimers}, the pump, alone: a handler that records what it is handed, no rules, no topology (the
 * scheduler's fire path end to end is {@code topology.FireDueTimersTest}).
 */
class TimerPumpTest {
    private static final long TICK = 10;
    private final Map<String, Fetched> view = new HashMap<>();
    private final InputWatermarks inputs = new InputWatermarks((topic, partition) -> view.get(topic), 0, 0, "requests", "results");
    private final List<String> fired = new ArrayList<>();
    private final SteppingTime fireClock = new SteppingTime(0, 0);
    private KeyValueStore<Bytes, byte[]> store;
    private Timers timers;

    @BeforeEach
    void openStore() throws Exception {
        store = TimerStores.open("ax-pump");
        timers = new Timers(new TimerIndex(store), new TimingWheel(TICK, 8, 0), 1000, 0);
        timers.rebuild(0, taskId -> true);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private FireDueTimers pump(int batchMax, long budgetMs) {
        return new FireDueTimers(timers, inputs, batchMax, budgetMs, fireClock, (timer, nowMs) -> {
            fired.add(timer.taskId() + "@" + nowMs);
            fireClock.move(5, 5);
        });
    }

    private void inputsReadUpTo(long ms) {
        view.put("requests", new Fetched(-1, ms));
        view.put("results", new Fetched(-1, ms));
    }

    @Test
    void shouldHandTheHandlerWhatIsDueHighestPriorityFirstUpToTheBatch() {
        inputsReadUpTo(1_000);
        timers.set(20, 1, "low", TimerKind.OCCURRENCE);
        timers.set(20, 9, "high", TimerKind.OCCURRENCE);
        timers.set(20, 5, "mid", TimerKind.OCCURRENCE);
        FireDueTimers pump = pump(2, 1_000);
        pump.punctuate(10);
        assertThat(fired).as("not before the due time").isEmpty();
        pump.punctuate(20);
        assertThat(fired).containsExactly("high@20", "mid@20");
        pump.punctuate(30);
        assertThat(fired).containsExactly("high@20", "mid@20", "low@30");
    }

    @Test
    void shouldWaitForTheInputsAndHoldATimeoutUntilTheResultsAreReadUpToIt() {
        timers.set(20, 4, "fire", TimerKind.OCCURRENCE);
        timers.set(20, 4, "timeout", TimerKind.TIMEOUT);
        FireDueTimers pump = pump(10, 1_000);
        pump.punctuate(30);
        assertThat(fired).as("nothing known of the inputs yet").isEmpty();
        view.put("requests", new Fetched(-1, 30));
        pump.punctuate(40);
        assertThat(fired).as("the results are not read up to the timeout").containsExactly("fire@40");
        view.put("results", new Fetched(-1, 30));
        pump.punctuate(50);
        assertThat(fired).containsExactly("fire@40", "timeout@50");
    }

    @Test
    void shouldDeferWhatTheTimeBudgetLeavesToTheNextPunctuation() {
        inputsReadUpTo(1_000);
        for (int i = 0; i < 4; i++) {
            timers.set(20, 9 - i, "t" + i, TimerKind.OCCURRENCE);
        }
        FireDueTimers pump = pump(10, 10); // each fire takes 5 ms of the fire clock
        pump.punctuate(20);
        assertThat(fired).containsExactly("t0@20", "t1@20");
        pump.punctuate(30);
        assertThat(fired).containsExactly("t0@20", "t1@20", "t2@30", "t3@30");
    }
}
