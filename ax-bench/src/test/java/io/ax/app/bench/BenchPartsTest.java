package io.ax.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class BenchPartsTest {
    @Test
    void shouldIndexOnlyOwnKeysBelowTheLimit() {
        TaskKeys keys = new TaskKeys("task-");

        assertThat(keys.indexOf(keys.key(17), 100)).isEqualTo(17);
        assertThat(keys.indexOf("task-100", 100)).isEqualTo(-1);
        assertThat(keys.indexOf("warmup-0", 100)).isEqualTo(-1);
        assertThat(keys.indexOf("task-", 100)).isEqualTo(-1);
        assertThat(keys.indexOf("task-1x", 100)).isEqualTo(-1);
        assertThat(keys.indexOf("task-99999999999", Integer.MAX_VALUE)).isEqualTo(-1);
    }

    @Test
    void shouldScatterConsecutiveTasksOverTheIdOrderAndStillRecoverEachNumber() {
        TaskKeys keys = new TaskKeys("task-", true);
        java.util.List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            String id = keys.key(i);
            assertThat(id).matches("task-[0-9a-f]{8}");
            assertThat(keys.indexOf(id, 10_000)).isEqualTo(i);
            ids.add(id);
        }
        for (int i : new int[] {Integer.MAX_VALUE - 1, 1 << 30, 123_456_789}) {
            assertThat(keys.indexOf(keys.key(i), Integer.MAX_VALUE)).isEqualTo(i);
        }
        assertThat(new java.util.HashSet<>(ids)).hasSize(10_000);
        // Consecutive tasks are not neighbours in the byte order of their ids: sorted, few of them stay next to each other.
        java.util.List<String> sorted = new java.util.ArrayList<>(ids);
        java.util.Collections.sort(sorted);
        int neighbours = 0;
        for (int i = 1; i < sorted.size(); i++) {
            if (Math.abs(keys.indexOf(sorted.get(i), 10_000) - keys.indexOf(sorted.get(i - 1), 10_000)) == 1) {
                neighbours++;
            }
        }
        assertThat(neighbours).isLessThan(100);
        assertThat(keys.indexOf(keys.key(10_000), 10_000)).as("not below the limit").isEqualTo(-1);
        assertThat(keys.indexOf("task-17", 10_000)).as("a consecutive id is not a scattered one").isEqualTo(-1);
        assertThat(keys.indexOf("task-0000000g", Integer.MAX_VALUE)).isEqualTo(-1);
        assertThat(new TaskKeys("task-").indexOf(keys.key(3), 10_000)).as("a scattered id is not a consecutive one").isEqualTo(-1);
    }

    @Test
    void shouldCountLateDispatchesBySecondOfDueTimeSoThatAStallShowsWhere() {
        LatenessBySecond bySecond = new LatenessBySecond(10_000);
        bySecond.record(10_000, 20, 40);     // second 0, on time
        bySecond.record(10_999, 151, 150);   // second 0: fired over 150 ms late, visible at exactly 150 (not over)
        bySecond.record(15_500, 300, 320);   // second 5: a stall
        bySecond.record(15_900, 100, 200);   // second 5: visible late though fired in time (the commit)
        bySecond.record(9_000, 10, 500);     // due before the first task: counted in second 0
        bySecond.record(10_000 + 1_000L * LatenessBySecond.MAX_SECONDS + 5_000, 1, 2); // beyond the bound: the last second

        assertThat(bySecond.secondsLate()).as("seconds with a dispatch visible over 150 ms late").isEqualTo(2);
        assertThat(bySecond.lines()).containsExactly(
                "second 0: due 3, fired > 150 ms 1 (max 151 ms), visible > 150 ms 1 (max 500 ms)",
                "second 5: due 2, fired > 150 ms 1 (max 300 ms), visible > 150 ms 2 (max 320 ms)",
                "second " + (LatenessBySecond.MAX_SECONDS - 1) + ": due 1, fired > 150 ms 0 (max 1 ms), visible > 150 ms 0 (max 2 ms)");
        assertThat(new LatenessBySecond(0).lines()).isEmpty();
        assertThat(new LatenessBySecond(0).secondsLate()).isZero();
    }

    @Test
    void shouldPrintWhyARunFailedOnTheCallersStream() {
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        int exitCode;
        try (java.io.PrintStream out = new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8)) {
            exitCode = BenchCommand.execute(out, "no-such-scenario", "--bootstrap", "127.0.0.1:1");
        }

        assertThat(exitCode).isEqualTo(1);
        assertThat(captured.toString(java.nio.charset.StandardCharsets.UTF_8))
                .contains("FAILED java.lang.IllegalArgumentException: unknown scenario 'no-such-scenario'")
                .contains("at io.ax.app.bench.Bench.run");
    }

    @Test
    void shouldCountNegativeLatenessAsEarlyAndRecordItAsZero() {
        LatencyRecorder recorder = new LatencyRecorder();
        for (int ms = 1; ms <= 100; ms++) {
            recorder.record(ms);
        }
        recorder.record(-5);

        assertThat(recorder.early()).isEqualTo(1);
        assertThat(recorder.count()).isEqualTo(101);
        assertThat(recorder.percentileMs(50)).isEqualTo(50);
        assertThat(recorder.maxMs()).isEqualTo(100);
    }

    @Test
    void shouldGrantPermitsAtTheRateIncludingWhatWasMissedWhileBehind() throws InterruptedException {
        SettableClock clock = new SettableClock(1_000);
        Pacer pacer = new Pacer(clock, 1000);

        assertThat(pacer.awaitPermits()).as("the first send is due at once").isEqualTo(1);
        clock.nowMs += 10;
        assertThat(pacer.awaitPermits()).as("10 ms at 1000/s").isEqualTo(10);
        clock.nowMs += 2;
        assertThat(pacer.awaitPermits()).isEqualTo(2);
    }

    /** A clock the test moves by hand. */
    private static final class SettableClock extends Clock {
        long nowMs;

        SettableClock(long nowMs) {
            this.nowMs = nowMs;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(nowMs);
        }
    }

    @Test
    void shouldReadUsedHeapFromG1AndGenerationalHeapInfo() {
        assertThat(HeapProbe.parseUsedKb("""
                12345:
                 garbage-first heap   total 262144K, used 51234K [0x00000000c0000000, 0x0000000100000000)
                  region size 1024K, 3 young (3072K), 0 survivors (0K)
                 Metaspace       used 40000K, committed 40500K, reserved 1114112K
                """)).isEqualTo(51234);
        assertThat(HeapProbe.parseUsedKb("""
                 def new generation   total 9792K, used 100K [0x0, 0x1)
                 tenured generation   total 21888K, used 2000K [0x1, 0x2)
                """)).isEqualTo(2100);
    }

    @Test
    void shouldReadCpuTicksOfThisProcess() throws Exception {
        assertThat(ProcessCpu.cpuTicks(ProcessHandle.current().pid())).isPositive();
    }

    @Test
    void shouldCountTheJitCompilerThreadsCpuAlone(@org.junit.jupiter.api.io.TempDir java.nio.file.Path proc) throws Exception {
        // /proc/<pid>/task/<tid>/stat lines: utime and stime are fields 14 and 15 (here 30 + 10, 5 + 2, ...).
        java.util.Map<String, String> threads = java.util.Map.of(
                "1", "1 (java) S 0 1 1 0 -1 0 0 0 0 0 700 100 0 0 20 0 30 0",
                "2", "2 (C2 CompilerThre) S 0 1 1 0 -1 0 0 0 0 0 30 10 0 0 20 0 30 0",
                "3", "3 (C1 CompilerThre) S 0 1 1 0 -1 0 0 0 0 0 5 2 0 0 20 0 30 0",
                "4", "4 (a (C2 CompilerThre) S 0 1 1 0 -1 0 0 0 0 0 90 90 0 0 20 0 30 0",
                "5", "5 (kafka-producer) R 0 1 1 0 -1 0 0 0 0 0 400 50 0 0 20 0 30 0");
        for (java.util.Map.Entry<String, String> thread : threads.entrySet()) {
            java.nio.file.Path dir = java.nio.file.Files.createDirectories(proc.resolve("task").resolve(thread.getKey()));
            java.nio.file.Files.writeString(dir.resolve("stat"), thread.getValue());
        }
        java.nio.file.Files.createDirectories(proc.resolve("task").resolve("6")); // a thread that ended: no stat
        // a thread that ended between the open and the read of its stat: the read fails ("No such process" from /proc;
        // here a directory where the file was, which fails the read as /proc's does)
        java.nio.file.Files.createDirectories(proc.resolve("task").resolve("7").resolve("stat"));

        assertThat(ProcessCpu.compilerTicks(proc)).as("C2 30 + 10 and C1 5 + 2; not a thread that only has the name inside")
                .isEqualTo(47);
        long self = ProcessHandle.current().pid();
        assertThat(ProcessCpu.compilerMs(self)).as("this JVM's own compiler threads").isBetween(0L, ProcessCpu.cpuMs(self));
    }

    @Test
    void shouldKeepTheChildLogsWhenAResultShowsAnEarlyLostOrDuplicateDispatch() {
        assertThat(Bench.brokeAGuarantee(ResultLine.of("capacity", 10).add("early", 0).add("lost", 0).add("dup", 0)
                .add("empty_lost", 0).add("p99_ms", 900))).isFalse();
        assertThat(Bench.brokeAGuarantee(ResultLine.of("capacity", 10).add("lost", 0).add("empty_lost", 600))).isTrue();
        assertThat(Bench.brokeAGuarantee(ResultLine.of("failover", 10).add("early", 1))).isTrue();
        assertThat(Bench.brokeAGuarantee(ResultLine.of("failover", 10).add("dup", 2))).isTrue();
    }

    @Test
    void shouldNameEachChaosInstancesLastClientStateAndItsErrorsFromItsLog() {
        String prefix = "04:11:18.531 INFO  [app-1-StreamThread-1] o.apache.kafka.streams.KafkaStreams - stream-client [app-1] ";
        java.util.stream.Stream<String> log = java.util.stream.Stream.of(
                prefix + "State transition from CREATED to REBALANCING",
                "04:11:18.532 ERROR [app-1-StreamThread-1] o.a.k.s.p.internals.TaskManager - stream-thread [x] Get exceptions",
                "04:11:18.533 INFO  [app-1-StreamThread-1] o.a.k.s.p.internals.StreamThread - stream-thread [x] State transition"
                        + " from PARTITIONS_ASSIGNED to RUNNING", // a thread's state, not the client's
                prefix + "State transition from REBALANCING to RUNNING",
                prefix + "State transition from RUNNING to REBALANCING",
                "04:11:19.001 ERROR [app-1-StreamThread-1] o.a.k.c.producer.KafkaProducer - fenced");

        assertThat(Instances.clientState(log)).isEqualTo("REBALANCING:2");
        assertThat(Instances.clientState(java.util.stream.Stream.of("starting"))).isEqualTo("?:0");
    }

    @Test
    void shouldGiveTheBrokersRequestsPerTaskMostRequestedFirst() {
        java.util.Map<String, Long> before = java.util.Map.of("Produce", 100L, "Fetch", 50L, "EndTxn", 7L);
        java.util.Map<String, Long> after = java.util.Map.of("Produce", 400L, "Fetch", 250L, "EndTxn", 7L, "ListOffsets", 1L,
                "Metadata", 20L);

        java.util.Map<String, Long> served = BrokerRequests.delta(before, after);

        assertThat(served).containsExactlyInAnyOrderEntriesOf(java.util.Map.of("Produce", 300L, "Fetch", 200L, "ListOffsets", 1L,
                "Metadata", 20L));
        // 1 request over 1,000 tasks is under 0.005 a task: left out
        assertThat(BrokerRequests.perTaskWord(served, 1_000)).isEqualTo("Produce:0.30,Fetch:0.20,Metadata:0.02");
        assertThat(BrokerRequests.perTaskWord(java.util.Map.of(), 1_000)).isEqualTo("none");
    }

    @Test
    void shouldCountTheCommittedOffsetsOfTheSchedulersInputsAlone() {
        java.util.Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> offsets =
                new java.util.HashMap<>();
        offsets.put(new org.apache.kafka.common.TopicPartition("ax.requests", 0), new org.apache.kafka.clients.consumer.OffsetAndMetadata(100));
        offsets.put(new org.apache.kafka.common.TopicPartition("ax.requests", 1), new org.apache.kafka.clients.consumer.OffsetAndMetadata(20));
        offsets.put(new org.apache.kafka.common.TopicPartition("ax.results", 0), new org.apache.kafka.clients.consumer.OffsetAndMetadata(3));
        offsets.put(new org.apache.kafka.common.TopicPartition("ax.results", 1), null); // nothing committed there yet
        offsets.put(new org.apache.kafka.common.TopicPartition("ax.workers", 0), new org.apache.kafka.clients.consumer.OffsetAndMetadata(9_000));

        assertThat(InputsCommitted.sum(offsets, java.util.Set.of("ax.requests", "ax.results")))
                .as("the requests' and the reports' offsets; not the heartbeats', which move whatever the scheduler does")
                .isEqualTo(123);
    }

    @Test
    void shouldAskTheCommittedOffsetsAtOnceThenAtMostOnceASecondKeepingTheLastAnswer() throws Exception {
        SettableClock clock = new SettableClock(1_700_000_000_000L); // a wall-clock time: the first ask is not put off
        java.util.concurrent.atomic.AtomicInteger asks = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicLong offset = new java.util.concurrent.atomic.AtomicLong(10);
        java.util.concurrent.atomic.AtomicBoolean failing = new java.util.concurrent.atomic.AtomicBoolean();
        InputsCommitted inputs = new InputsCommitted(() -> {
            asks.incrementAndGet();
            if (failing.get()) {
                throw new java.util.concurrent.TimeoutException("no answer");
            }
            return java.util.Map.of(new org.apache.kafka.common.TopicPartition("ax.requests", 0),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(offset.get()));
        }, () -> { }, java.util.List.of("ax.requests"), clock);

        assertThat(inputs.committed()).as("asked at the first call").isEqualTo(10);
        offset.set(25);
        clock.nowMs += InputsCommitted.REFRESH_MS - 1;
        assertThat(inputs.committed()).as("the last answer within the second").isEqualTo(10);
        clock.nowMs += 1;
        assertThat(inputs.committed()).isEqualTo(25);
        assertThat(asks).hasValue(2);

        failing.set(true);
        clock.nowMs += InputsCommitted.REFRESH_MS;
        assertThat(inputs.committed()).as("a failed answer keeps the last one").isEqualTo(25);
        assertThat(asks).hasValue(3);
    }
}
