package io.ax.app.internal.timer;

import io.ax.app.internal.core.TimerKind;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Timers} over a real RocksDB timer index: the wheel holds the near horizon, refills load the index in
 * due order from the watermark, a rebuild starts again from the index.
 */
class TimersTest {
    private static final long TICK = 10;
    private static final int SLOTS = 8; // horizon: 80 ms
    private KeyValueStore<Bytes, byte[]> store;
    private final List<WheelTimer> fired = new ArrayList<>();

    @BeforeEach
    void openStore() throws Exception {
        store = TimerStores.open("ax-timers");
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private Timers timers(long nowMs) {
        Timers timers = new Timers(new TimerIndex(store), new TimingWheel(TICK, SLOTS, nowMs), 1000, 0);
        timers.rebuild(nowMs, taskId -> true);
        return timers;
    }

    private int fireDue(Timers timers, long nowMs) {
        return timers.fireDue(nowMs, timer -> {
            timers.fired(timer);
            fired.add(timer);
        }, 100);
    }

    private long indexSize() {
        long n = 0;
        try (KeyValueIterator<Bytes, byte[]> all = store.all()) {
            while (all.hasNext()) {
                all.next();
                n++;
            }
        }
        return n;
    }

    @Test
    void shouldLoadTimersBeyondTheHorizonOnlyWhenTheyComeNearAndFireThemInDueOrder() {
        Timers timers = timers(0);
        timers.set(500, 4, "far", TimerKind.OCCURRENCE);
        timers.set(30, 4, "near", TimerKind.OCCURRENCE);
        timers.set(250, 4, "middle", TimerKind.OCCURRENCE);
        for (long now = 0; now <= 600; now += TICK) {
            fireDue(timers, now);
            fired.forEach(timer -> assertThat(timer.dueAtMs()).isLessThanOrEqualTo(600));
        }
        assertThat(fired).extracting(WheelTimer::taskId).containsExactly("near", "middle", "far");
        assertThat(indexSize()).as("fired timers leave the index").isZero();
    }

    @Test
    void shouldTellWhenTheNextTimerCanFireIncludingOnesNotLoadedYet() {
        Timers timers = timers(0);
        assertThat(timers.nextFireMs()).as("unknown until the index was read once").isEqualTo(Long.MIN_VALUE);
        fireDue(timers, 0);
        assertThat(timers.nextFireMs()).as("no timer at all").isEqualTo(Long.MAX_VALUE);
        timers.set(400, 4, "far", TimerKind.OCCURRENCE);
        assertThat(timers.nextFireMs()).as("a lower bound, never later").isLessThanOrEqualTo(400);
        fireDue(timers, 0);
        assertThat(timers.nextFireMs()).isLessThanOrEqualTo(400);
    }

    @Test
    void shouldRemoveATimerUnsetInsideTheLoadedWindowAtOnce() {
        Timers timers = timers(0);
        timers.set(30, 4, "t", TimerKind.TIMEOUT);
        fireDue(timers, 0); // loads it
        timers.unset(30, "t", TimerKind.TIMEOUT);
        assertThat(indexSize()).isZero();
        fireDue(timers, 100);
        assertThat(fired).isEmpty();
    }

    @Test
    void shouldLeaveATimerUnsetAheadOfTheWatermarkInTheIndexUntilItFiresStale() {
        Timers timers = timers(0);
        timers.set(30, 4, "near", TimerKind.OCCURRENCE);
        fireDue(timers, 0);
        timers.set(5_000, 4, "far", TimerKind.TIMEOUT);
        timers.unset(5_000, "far", TimerKind.TIMEOUT);
        assertThat(indexSize()).as("no tombstone ahead of the watermark").isEqualTo(2);
        for (long now = 0; now <= 5_000; now += TICK) {
            fireDue(timers, now);
        }
        assertThat(fired).extracting(WheelTimer::taskId).containsExactly("near", "far");
        assertThat(indexSize()).isZero();
    }

    @Test
    void shouldWipeTheIndexAtAnAssignmentAndKeepOnlyTheTimersOfTasksTheRebuildHasReached() {
        Timers before = timers(0);
        before.set(20, 4, "a", TimerKind.OCCURRENCE);
        before.set(40, 4, "b", TimerKind.RETRY);
        before.set(900, 4, "c", TimerKind.PURGE);
        fireDue(before, 0);
        // A new owner: the index may lag behind the task store or run ahead of it, so it starts empty and each task's
        // timers come back as the rebuild reaches it ("a" reached; "b" not yet: its rebuild derives it later).
        Timers after = new Timers(new TimerIndex(store), new TimingWheel(TICK, SLOTS, 10), 1000, 0);
        after.rebuild(10, "a"::equals);
        assertThat(indexSize()).isZero();
        after.set(20, 4, "a", TimerKind.OCCURRENCE);
        after.set(40, 4, "b", TimerKind.RETRY);
        for (long now = 10; now <= 1000; now += TICK) {
            fireDue(after, now);
        }
        assertThat(fired).extracting(WheelTimer::taskId).containsExactly("a");
    }

    @Test
    void shouldHoldADueTimerAsideAndReleaseItOnceItsInputsAreRead() {
        Timers timers = timers(0);
        timers.set(30, 4, "t", TimerKind.TIMEOUT);
        timers.fireDue(100, timers::hold, 100);
        assertThat(timers.nextFireMs()).as("look again at the next tick").isEqualTo(Long.MIN_VALUE);
        assertThat(timers.fireHeld(29, fired::add, 100)).isZero();
        assertThat(timers.fireHeld(30, fired::add, 100)).isEqualTo(1);
        assertThat(indexSize()).as("a held timer keeps its index key until fired").isEqualTo(1);
    }

    @Test
    void shouldKeepEachTimersOwnerInTheIndexSoARefillSharesTheBacklogByOwnerAgain() {
        Timers timers = timers(1000);
        long beyondHorizon = 1000 + 2 * TICK * SLOTS;
        timers.set(beyondHorizon, 4, "a", TimerKind.OCCURRENCE, "acme");
        timers.set(beyondHorizon, 4, "b", TimerKind.OCCURRENCE, null);
        long now = 1000;
        while (now < beyondHorizon) { // the wheel turns; the two are loaded from the index once within its horizon
            now += TICK;
            fireDue(timers, now);
        }
        assertThat(fired).extracting(WheelTimer::taskId, WheelTimer::owner)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", "acme"), org.assertj.core.groups.Tuple.tuple("b", null));
    }
}
