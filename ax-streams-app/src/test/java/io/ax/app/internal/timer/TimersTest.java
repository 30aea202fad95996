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
 * {@link Timers} over a real RocksDB timer index: the wheel holds the near horizon (timers set within it the wheel
 * alone), refills load the index in due order from the watermark, a rebuild starts again from the tasks.
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
        timers.set(130, 4, "t", TimerKind.TIMEOUT); // beyond the horizon: in the index
        assertThat(indexSize()).isEqualTo(1);
        fireDue(timers, 60);
        fireDue(timers, 70); // the wheel has turned: loads it
        timers.unset(130, "t", TimerKind.TIMEOUT);
        assertThat(indexSize()).isZero();
        fireDue(timers, 200);
        assertThat(fired).isEmpty();
    }

    /**
     * A timer set within the horizon while the wheel has room is the wheel's alone: no index key is written, nor deleted
     * when it fires or is given up (a one-shot task due within seconds costs its timer no RocksDB write). The index and
     * the wheel are both derived from the task store and rebuilt at each assignment, so the wheel loses nothing the
     * index would have kept. Beyond the horizon, or with the wheel full ({@code ax.wheel.max.timers}), the index keeps it.
     */
    @Test
    void shouldKeepATimerWithinTheHorizonInTheWheelAloneWhileItHasRoom() {
        Timers timers = new Timers(new TimerIndex(store), new TimingWheel(TICK, SLOTS, 0), 2, 0);
        timers.rebuild(0, taskId -> true);
        timers.set(30, 4, "near", TimerKind.OCCURRENCE);
        timers.set(40, 4, "given-up", TimerKind.RETRY);
        assertThat(indexSize()).as("both within the horizon, with room").isZero();
        timers.set(50, 4, "no-room", TimerKind.OCCURRENCE);
        timers.set(500, 4, "far", TimerKind.OCCURRENCE);
        assertThat(indexSize()).as("the wheel holds its most (2); the other beyond the horizon").isEqualTo(2);
        timers.unset(40, "given-up", TimerKind.RETRY);
        assertThat(indexSize()).as("nothing to delete for a timer the wheel alone held").isEqualTo(2);
        for (long now = 0; now <= 600; now += TICK) {
            fireDue(timers, now);
        }
        assertThat(fired).extracting(WheelTimer::taskId).containsExactly("near", "no-room", "far");
        assertThat(fired).extracting(WheelTimer::indexed).containsExactly(false, true, true);
        assertThat(indexSize()).isZero();
    }

    /**
     * The far level: a timer beyond the wheel's horizon and within the far horizon after it, while the level has room, is
     * held in memory alone (an execution's timeout, minutes ahead, costs no RocksDB write); it moves into the wheel as it
     * comes within the wheel's horizon and fires at its due time, never before; given up, it leaves memory at once and
     * never fires. Beyond the far horizon, or with the level full, the index keeps it as before.
     */
    @Test
    void shouldHoldTimersOfTheFarHorizonInMemoryAloneAndGiveThemUpAtOnce() {
        Timers timers = new Timers(new TimerIndex(store), new TimingWheel(TICK, SLOTS, 0), 2, 1_000, 2, 0); // wheel: 70 ms
        timers.rebuild(0, taskId -> true);
        timers.set(300, 4, "timeout", TimerKind.TIMEOUT);
        timers.set(500, 4, "given-up", TimerKind.TIMEOUT);
        assertThat(indexSize()).as("both beyond the wheel's horizon, within the far level's, with room").isZero();
        timers.set(400, 4, "no-room", TimerKind.OCCURRENCE);
        timers.set(1_200, 4, "beyond", TimerKind.PURGE);
        assertThat(indexSize()).as("the far level holds its most (2); the other beyond its horizon").isEqualTo(2);
        timers.unset(500, "given-up", TimerKind.TIMEOUT);
        assertThat(indexSize()).as("nothing to delete for a timer memory alone held").isEqualTo(2);
        assertThat(timers.nextFireMs()).as("a lower bound of the next fire, the far level's included").isLessThanOrEqualTo(300);
        for (long now = 0; now <= 1_300; now += TICK) {
            fireDue(timers, now);
            for (WheelTimer timer : fired) {
                assertThat(timer.dueAtMs()).as("never early").isLessThanOrEqualTo(now);
            }
        }
        assertThat(fired).extracting(WheelTimer::taskId).containsExactly("timeout", "no-room", "beyond");
        assertThat(fired).extracting(WheelTimer::indexed).containsExactly(false, true, true);
        assertThat(indexSize()).isZero();
    }

    @Test
    void shouldLeaveATimerUnsetAheadOfTheWatermarkInTheIndexUntilItFiresStale() {
        Timers timers = timers(0);
        timers.set(30, 4, "near", TimerKind.OCCURRENCE);
        fireDue(timers, 0);
        timers.set(5_000, 4, "far", TimerKind.TIMEOUT);
        timers.unset(5_000, "far", TimerKind.TIMEOUT);
        assertThat(indexSize()).as("no tombstone ahead of the watermark (near is the wheel's alone)").isEqualTo(1);
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
        timers.set(130, 4, "t", TimerKind.TIMEOUT); // beyond the horizon: in the index
        timers.fireDue(130, timers::hold, 100);
        timers.fireDue(140, timers::hold, 100); // the wheel has turned: loaded, due, held
        assertThat(timers.nextFireMs()).as("look again at the next tick").isEqualTo(Long.MIN_VALUE);
        assertThat(timers.fireHeld(129, fired::add, 100)).isZero();
        assertThat(timers.fireHeld(130, fired::add, 100)).isEqualTo(1);
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
