package io.ax.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link CronSchedule} against an independent, deliberately naive implementation: random Unix expressions in random
 * zones, started shortly before one of the zone's real transitions, every minute of the next days checked one by one
 * on the time line. The naive rule: a minute fires when its local time matches and it is the first instant with that
 * local time; the first instant after a gap fires when a local time in the gap matches. Day-of-month and day-of-week
 * follow Vixie cron (both restricted: either matches). It shares nothing with the code under test but the JDK's tzdata.
 */
class CronScheduleDifferentialTest {
    private static final int CASES = 1_500;
    private static final Duration HORIZON = Duration.ofDays(3);
    private static final List<String> ZONES = new ArrayList<>(new TreeSet<>(ZoneId.getAvailableZoneIds()));
    /** The zones that change their clocks between 2020 and 2035: most cases are drawn from these. */
    private static final List<String> CHANGING = ZONES.stream().filter(z -> {
        ZoneOffsetTransition t = ZoneId.of(z).getRules().nextTransition(Instant.parse("2020-01-01T00:00:00Z"));
        return t != null && t.getInstant().isBefore(Instant.parse("2036-01-01T00:00:00Z"));
    }).toList();

    @Test
    void shouldAgreeWithAMinuteByMinuteOracleAcrossRealTransitions() {
        long seed = 20261201L;
        SplittableRandom random = new SplittableRandom(seed);
        int compared = 0;
        int withTransition = 0;
        for (int c = 0; c < CASES; c++) {
            List<String> zones = random.nextInt(5) == 0 ? ZONES : CHANGING;
            ZoneId zone = ZoneId.of(zones.get(random.nextInt(zones.size())));
            Instant from = startNearATransition(zone, random);
            Expression expression = Expression.random(random);
            List<Long> oracle = oracle(expression, zone, from, 4);
            List<Long> actual = new ArrayList<>();
            CronSchedule schedule = CronSchedule.parse(expression.text(), zone.getId());
            long t = from.toEpochMilli();
            long endMs = from.plus(HORIZON).toEpochMilli();
            while (actual.size() < 4) {
                OptionalLong next = schedule.nextAfter(t);
                if (next.isEmpty() || next.getAsLong() > endMs) {
                    break;
                }
                t = next.getAsLong();
                actual.add(t);
            }
            assertThat(actual).as("case %d (seed %d): \"%s\" in %s from %s", c, seed, expression.text(), zone, from)
                    .containsExactlyElementsOf(oracle);
            compared += actual.size();
            if (zone.getRules().nextTransition(from) != null
                    && zone.getRules().nextTransition(from).getInstant().isBefore(from.plus(HORIZON))) {
                withTransition++;
            }
        }
        assertThat(compared).as("fire times compared").isGreaterThan(CASES);
        assertThat(withTransition).as("cases spanning a transition").isGreaterThan(CASES / 2);
    }

    /** A minute boundary a few hours before one of the zone's transitions in 2020-2035, or a random one if it has none. */
    private static Instant startNearATransition(ZoneId zone, SplittableRandom random) {
        Instant base = Instant.parse("2020-01-01T00:00:00Z").plus(Duration.ofDays(random.nextInt(15 * 365)));
        ZoneOffsetTransition transition = zone.getRules().nextTransition(base);
        Instant near = transition != null && transition.getInstant().isBefore(Instant.parse("2036-01-01T00:00:00Z"))
                ? transition.getInstant().minus(Duration.ofMinutes(random.nextInt(6 * 60)))
                : base;
        return near.plusSeconds(random.nextInt(2) == 0 ? 0 : random.nextInt(60)); // on or off a minute
    }

    /** The first {@code n} fire instants strictly after {@code from} within the horizon, minute by minute. */
    private static List<Long> oracle(Expression expression, ZoneId zone, Instant from, int n) {
        ZoneRules rules = zone.getRules();
        List<Long> fires = new ArrayList<>();
        Instant minute = Instant.ofEpochSecond((from.getEpochSecond() / 60 + 1) * 60);
        Instant end = from.plus(HORIZON);
        for (; !minute.isAfter(end) && fires.size() < n; minute = minute.plusSeconds(60)) {
            LocalDateTime local = LocalDateTime.ofInstant(minute, zone);
            boolean first = ZonedDateTime.ofLocal(local, zone, null).withEarlierOffsetAtOverlap().toInstant().equals(minute);
            boolean fires1 = first && expression.matches(local);
            ZoneOffsetTransition transition = rules.getTransition(local);
            if (!fires1 && transition == null) {
                ZoneOffsetTransition justBefore = rules.previousTransition(minute.plusNanos(1));
                if (justBefore != null && justBefore.isGap() && justBefore.getInstant().equals(minute)) {
                    for (LocalDateTime gap = justBefore.getDateTimeBefore(); gap.isBefore(justBefore.getDateTimeAfter());
                         gap = gap.plusMinutes(1)) {
                        if (expression.matches(gap)) {
                            fires1 = true;
                            break;
                        }
                    }
                }
            }
            if (fires1) {
                fires.add(minute.toEpochMilli());
            }
        }
        return fires;
    }

    /** A random Unix expression and its own matcher. */
    private record Expression(String text, BitSet minutes, BitSet hours, BitSet days, BitSet months, BitSet weekdays,
                              boolean daysRestricted, boolean weekdaysRestricted) {
        static Expression random(SplittableRandom random) {
            String[] fields = new String[5];
            BitSet[] sets = new BitSet[5];
            int[][] ranges = {{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 6}};
            for (int f = 0; f < 5; f++) {
                // Minutes and hours are often restricted, so that gaps and overlaps matter; days rarely, so things fire.
                int star = f >= 2 ? 3 : 1;
                int choice = random.nextInt(4 + star);
                int lo = ranges[f][0];
                int hi = ranges[f][1];
                BitSet set = new BitSet();
                if (choice >= 4) {
                    fields[f] = "*";
                    set.set(lo, hi + 1);
                } else if (choice == 0) {
                    int v = lo + random.nextInt(hi - lo + 1);
                    fields[f] = Integer.toString(v);
                    set.set(v);
                } else if (choice == 1) {
                    int a = lo + random.nextInt(hi - lo + 1);
                    int b = a + random.nextInt(hi - a + 1);
                    fields[f] = a + "-" + b;
                    set.set(a, b + 1);
                } else if (choice == 2) {
                    int step = 2 + random.nextInt(Math.max(1, (hi - lo) / 2));
                    fields[f] = "*/" + step;
                    for (int v = lo; v <= hi; v += step) {
                        set.set(v);
                    }
                } else {
                    int a = lo + random.nextInt(hi - lo + 1);
                    int b = lo + random.nextInt(hi - lo + 1);
                    fields[f] = Math.min(a, b) == Math.max(a, b) ? Integer.toString(a) : Math.min(a, b) + "," + Math.max(a, b);
                    set.set(a);
                    set.set(b);
                }
                sets[f] = set;
            }
            return new Expression(String.join(" ", fields), sets[0], sets[1], sets[2], sets[3], sets[4],
                    !fields[2].equals("*"), !fields[4].equals("*"));
        }

        boolean matches(LocalDateTime local) {
            if (!minutes.get(local.getMinute()) || !hours.get(local.getHour()) || !months.get(local.getMonthValue())) {
                return false;
            }
            boolean day = days.get(local.getDayOfMonth());
            boolean weekday = weekdays.get(local.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : local.getDayOfWeek().getValue());
            if (daysRestricted && weekdaysRestricted) {
                return day || weekday;
            }
            return day && weekday;
        }
    }
}
