package io.ax.app.bench;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The failures of a chaos run, at fixed fractions of the load's duration D from its start: kill -9 of instance a at
 * 0.15 D (restarted {@link ChaosScenario#RESTART_AFTER_MS} later), kill -9 of a broker at 0.45 D (a single broker is
 * restarted at once on its port and data dir; node 2 of a cluster stays down {@link ChaosScenario#NODE_DOWN_MS}),
 * kill -9 of instance b at 0.7 D (restarted likewise). Each runs on its own thread, so a slow restart does not move
 * the next failure; {@link #events()} records when each happened (after the kill returned, when a restart was ready).
 */
final class ChaosTimeline {
    /** One thing that happened, at {@code atMs} by the bench clock. */
    record Event(String name, long atMs) {
    }

    private final BenchContext context;
    private final Clock clock;
    private final List<Event> events = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Throwable> failures = new ArrayList<>();
    private final AtomicInteger kills = new AtomicInteger();
    private final AtomicInteger brokerKills = new AtomicInteger();
    private final AtomicInteger restarts = new AtomicInteger();
    private volatile long loadStartMs;

    ChaosTimeline(BenchContext context) {
        this.context = context;
        this.clock = context.clock();
    }

    void start(long loadStartMs, long durationMs, ChaosBrokers brokers, Instances instances) {
        this.loadStartMs = loadStartMs;
        at("kill-a", loadStartMs + (long) (0.15 * durationMs), () -> killAndRestart(instances, 0));
        at("broker", loadStartMs + (long) (0.45 * durationMs), () -> killBroker(brokers));
        at("kill-b", loadStartMs + (long) (0.70 * durationMs), () -> killAndRestart(instances, 1));
    }

    private void killAndRestart(Instances instances, int index) throws Exception {
        String name = Instances.name(index);
        long pid = instances.kill(index);
        kills.incrementAndGet();
        record("kill_" + name);
        context.note("killed scheduler instance " + name + " (kill -9, pid " + pid + ")");
        Await.untilTime(clock, clock.millis() + ChaosScenario.RESTART_AFTER_MS);
        instances.restart(index);
        restarts.incrementAndGet();
        record("restarted_" + name);
    }

    private void killBroker(ChaosBrokers brokers) throws Exception {
        int nodeId = brokers.count() == 1 ? 1 : 2;
        ChildBroker node = brokers.node(nodeId);
        long pid = node.pid();
        boolean kill = "kill".equals(ChaosScenario.brokerStop(context.options()));
        if (kill) {
            node.killForcibly();
        } else {
            node.close();
        }
        brokerKills.incrementAndGet();
        record("broker_kill");
        context.note((kill ? "killed" : "stopped") + " Kafka node " + nodeId + " of " + brokers.count()
                + (kill ? " (kill -9, pid " : " (SIGTERM, controlled shutdown, pid ") + pid + ")");
        if (brokers.count() > 1) {
            Await.untilTime(clock, clock.millis() + ChaosScenario.NODE_DOWN_MS);
        }
        node.restart();
        restarts.incrementAndGet();
        record("broker_back");
        context.note("Kafka node " + nodeId + " restarted on its port and data dir, pid " + node.pid());
    }

    private void at(String name, long atMs, Action action) {
        Thread thread = new Thread(() -> {
            try {
                Await.untilTime(clock, atMs);
                action.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception | Error e) {
                synchronized (failures) {
                    failures.add(e);
                }
                context.note("chaos step " + name + " failed: " + e);
            }
        }, "bench-chaos-" + name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    private void record(String name) {
        synchronized (events) {
            events.add(new Event(name, clock.millis()));
        }
    }

    /** Waits for every step (restarts included); throws the first failure of a step. */
    void awaitEnd() throws InterruptedException {
        for (Thread thread : threads) {
            thread.join();
        }
        synchronized (failures) {
            if (!failures.isEmpty()) {
                throw new IllegalStateException("a chaos step failed: " + failures.get(0), failures.get(0));
            }
        }
    }

    List<Event> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    long loadStartMs() {
        return loadStartMs;
    }

    int kills() {
        return kills.get();
    }

    int brokerKills() {
        return brokerKills.get();
    }

    int restarts() {
        return restarts.get();
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }
}
