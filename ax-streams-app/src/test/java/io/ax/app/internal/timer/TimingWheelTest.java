package io.ax.app.internal.timer;

import io.ax.app.internal.core.TimerKind;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimingWheelTest {
    private static final long TICK = 10;
    private final List<WheelTimer> fired = new ArrayList<>();

    private static WheelTimer timer(long dueAtMs) {
        return new WheelTimer(dueAtMs, 4, "t" + dueAtMs, TimerKind.OCCURRENCE);
    }

    @Test
    void shouldFireAtItsTickAndNotATickBefore() {
        for (long due = 1000; due < 1000 + 3 * TICK; due++) {
            TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
            wheel.add(timer(due));
            long tickStart = ((due + TICK - 1) / TICK) * TICK;
            for (long now = 1000; now < tickStart; now++) {
                assertThat(wheel.poll(now, fired::add, 100)).as("due %d polled at %d", due, now).isZero();
            }
            assertThat(wheel.poll(tickStart, fired::add, 100)).as("due %d at its tick %d", due, tickStart).isEqualTo(1);
            assertThat(wheel.poll(tickStart + TICK, fired::add, 100)).isZero();
        }
    }

    @Test
    void shouldNeverFireATimerBeforeItsDueTime() {
        TimingWheel wheel = new TimingWheel(TICK, 64, 0);
        for (long due = 0; due < 600; due += 7) {
            wheel.add(timer(due));
        }
        for (long now = 0; now <= 700; now += 3) {
            long at = now;
            wheel.poll(now, t -> {
                assertThat(t.dueAtMs()).isLessThanOrEqualTo(at);
                assertThat(at - t.dueAtMs()).isLessThan(TICK + 3);
                fired.add(t);
            }, 1000);
        }
        assertThat(fired).hasSize(86);
    }

    @Test
    void shouldAdmitTimersUpToTheHorizonOnly() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        assertThat(wheel.horizonMs()).isEqualTo(1070);
        assertThat(wheel.add(timer(1069))).isTrue();
        assertThat(wheel.add(timer(1070))).isTrue();
        assertThat(wheel.add(timer(1071))).isFalse();
        wheel.poll(1010, fired::add, 100);
        assertThat(wheel.horizonMs()).isEqualTo(1090);
        assertThat(wheel.add(timer(1071))).isTrue();
        assertThat(wheel.add(timer(1091))).isFalse();
    }

    @Test
    void shouldFireOverdueTimersOnTheNextPoll() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        wheel.poll(1055, fired::add, 100);
        assertThat(wheel.add(timer(900))).isTrue();
        assertThat(wheel.poll(1055, fired::add, 100)).isZero();
        assertThat(wheel.poll(1060, fired::add, 100)).isEqualTo(1);
    }

    @Test
    void shouldRemoveAHeldTimerByDueTimeTaskAndKindSoItNeverFires() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        wheel.add(timer(1030));
        wheel.add(new WheelTimer(1030, 9, "t1030", TimerKind.TIMEOUT));
        wheel.poll(1055, fired::add, 100); // fires both timers due at 1030
        assertThat(fired).hasSize(2);
        fired.clear();
        wheel.add(timer(1070));
        wheel.add(new WheelTimer(1070, 9, "t1070", TimerKind.TIMEOUT));

        assertThat(wheel.remove(1070, 1070, "t1070", TimerKind.TIMEOUT)).isNotNull();
        assertThat(wheel.remove(1070, 1070, "t1070", TimerKind.TIMEOUT)).as("only one was held").isNull();
        assertThat(wheel.remove(1080, 1080, "t1080", TimerKind.OCCURRENCE)).isNull();
        assertThat(wheel.size()).isEqualTo(1);
        wheel.poll(1100, fired::add, 100);
        assertThat(fired).containsExactly(timer(1070));
    }

    @Test
    void shouldRemoveATimerThatWasAddedOverdue() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        wheel.poll(1055, fired::add, 100);
        wheel.add(timer(900)); // overdue: held in the current tick's slot

        assertThat(wheel.remove(900, 900, "t900", TimerKind.OCCURRENCE)).isNotNull();
        assertThat(wheel.poll(1100, fired::add, 100)).isZero();
        assertThat(wheel.size()).isZero();
    }

    @Test
    void shouldFireNothingWhenTimeGoesBackwards() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        wheel.add(timer(1030));
        wheel.poll(1020, fired::add, 100);
        assertThat(wheel.poll(500, fired::add, 100)).isZero();
        assertThat(wheel.poll(1030, fired::add, 100)).isEqualTo(1);
        assertThat(wheel.poll(1000, fired::add, 100)).isZero();
    }

    @Test
    void shouldFireAtMostTheLimitByPriorityAcrossEveryTickReached() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        wheel.add(new WheelTimer(1010, 1, "low", TimerKind.OCCURRENCE));
        wheel.add(new WheelTimer(1010, 9, "high", TimerKind.OCCURRENCE));
        wheel.add(new WheelTimer(1010, 5, "mid", TimerKind.OCCURRENCE));
        wheel.add(new WheelTimer(1020, 9, "next-tick", TimerKind.OCCURRENCE));
        assertThat(wheel.poll(1020, fired::add, 2)).isEqualTo(2);
        assertThat(fired).as("a backlog over two ticks fires by rank: due time - priority x 1 s")
                .extracting(WheelTimer::taskId).containsExactly("high", "next-tick");
        assertThat(wheel.poll(1020, fired::add, 2)).isEqualTo(2);
        assertThat(fired).extracting(WheelTimer::taskId).containsExactly("high", "next-tick", "mid", "low");
        assertThat(wheel.size()).isZero();
    }

    @Test
    void shouldLetPriorityOvertakeOnlyAsFarAsItsAging() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000, 10); // one priority level is worth 10 ms
        wheel.add(new WheelTimer(1010, 0, "early-p0", TimerKind.OCCURRENCE));   // rank 1010
        wheel.add(new WheelTimer(1060, 9, "late-p9", TimerKind.OCCURRENCE));    // rank 1060 - 90 = 970
        wheel.add(new WheelTimer(1070, 1, "later-p1", TimerKind.OCCURRENCE));   // rank 1060
        wheel.add(new WheelTimer(1070, 9, "latest-p9", TimerKind.OCCURRENCE));  // rank 980
        assertThat(wheel.poll(1070, fired::add, 10)).isEqualTo(4);
        assertThat(fired).extracting(WheelTimer::taskId).containsExactly("late-p9", "latest-p9", "early-p0", "later-p1");
    }

    @Test
    void shouldShareABacklogBetweenOwnersInTurnsSoTheFewOfOneGoAmongTheFirst() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        for (int i = 0; i < 100; i++) {
            wheel.add(new WheelTimer(1010, 1010, 4, "big-" + i, TimerKind.OCCURRENCE, "big"));
        }
        wheel.add(new WheelTimer(1060, 1060, 4, "small-0", TimerKind.OCCURRENCE, "small"));
        wheel.add(new WheelTimer(1070, 1070, 4, "small-1", TimerKind.OCCURRENCE, "small"));

        assertThat(wheel.poll(1070, fired::add, 4)).isEqualTo(4);
        assertThat(fired).as("due 50 ms after 100 of another owner, yet fired in turns with them")
                .extracting(WheelTimer::taskId).containsExactly("big-0", "small-0", "big-1", "small-1");

        assertThat(wheel.poll(1070, fired::add, 200)).isEqualTo(98);
        assertThat(fired.subList(4, 102)).as("the rest in rank order").extracting(WheelTimer::taskId)
                .startsWith("big-2", "big-3").endsWith("big-99");
        assertThat(wheel.size()).isZero();
    }

    @Test
    void shouldWeighPriorityAgainstTurnsAtOneTurnPerLevel() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        for (int i = 0; i < 10; i++) {
            wheel.add(new WheelTimer(1010, 1010, 2, "hot-" + i, TimerKind.OCCURRENCE, "hot"));
        }
        wheel.add(new WheelTimer(1010, 1010, 0, "cold", TimerKind.OCCURRENCE, null));

        wheel.poll(1010, fired::add, 5);

        assertThat(fired).as("two priority levels ahead: two turns, then the owner-less one's turn")
                .extracting(WheelTimer::taskId).containsExactly("hot-0", "hot-1", "cold", "hot-2", "hot-3");
    }

    @Test
    void shouldKeepTheRankOrderWithASingleOwner() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        wheel.add(new WheelTimer(1010, 1010, 1, "low", TimerKind.OCCURRENCE, "acme"));
        wheel.add(new WheelTimer(1010, 1010, 9, "high", TimerKind.OCCURRENCE, "acme"));
        wheel.add(new WheelTimer(1020, 1020, 9, "next-tick", TimerKind.OCCURRENCE, "acme"));

        wheel.poll(1020, fired::add, 2);

        assertThat(fired).extracting(WheelTimer::taskId).containsExactly("high", "next-tick");
    }

    @Test
    void shouldCatchUpAfterAJumpLongerThanTheWheel() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        wheel.add(timer(1010));
        wheel.add(timer(1070));
        assertThat(wheel.poll(50_000, fired::add, 100)).isEqualTo(2);
        assertThat(wheel.horizonMs()).isEqualTo(50_080);
    }

    @Test
    void shouldTellWhenItsEarliestTimerCanFire() {
        TimingWheel wheel = new TimingWheel(TICK, 8, 1000);
        assertThat(wheel.nextFireMs()).isEqualTo(Long.MAX_VALUE);
        wheel.add(timer(1042));
        wheel.add(timer(1061));
        assertThat(wheel.nextFireMs()).isEqualTo(1050);
        wheel.poll(1050, fired::add, 100);
        assertThat(wheel.nextFireMs()).isEqualTo(1070);
        wheel.add(timer(900));
        assertThat(wheel.nextFireMs()).as("overdue: the current tick").isEqualTo(1060);
    }

    @Test
    void shouldRejectASizeThatIsNotAPowerOfTwo() {
        assertThatThrownBy(() -> new TimingWheel(TICK, 12, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("power of two");
    }
}
