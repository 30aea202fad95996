package io.ax.app.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The chaos run's three scheduler instances {@code a b c}: child JVMs of one application, each on its own state dir
 * with its own {@code ax.instance.name} (so its own static group membership). An instance can be killed (kill -9)
 * and restarted on the same state dir from any thread.
 */
final class Instances implements AutoCloseable {
    static final int COUNT = 3;
    private static final List<String> NAMES = List.of("a", "b", "c");

    private final BenchContext context;
    private final String label;
    private final Map<String, String> settings;
    private final Path[] stateDirs = new Path[COUNT];
    private final AtomicReferenceArray<ChildScheduler> running = new AtomicReferenceArray<>(COUNT);

    private Instances(BenchContext context, String label, Map<String, String> settings) {
        this.context = context;
        this.label = label;
        this.settings = Map.copyOf(settings);
    }

    /** Starts a (which creates the topics), then b and c together; returns once all three run. */
    static Instances start(BenchContext context, String label, Map<String, String> settings) throws Exception {
        Instances instances = new Instances(context, label, settings);
        try {
            for (int i = 0; i < COUNT; i++) {
                instances.stateDirs[i] = context.newDir(label + "-state-" + NAMES.get(i));
            }
            instances.startInstance(0);
            ExecutorService starter = Executors.newFixedThreadPool(COUNT - 1);
            try {
                List<Future<Object>> rest = List.of(starter.submit(() -> instances.startInstance(1)),
                        starter.submit(() -> instances.startInstance(2)));
                for (Future<Object> future : rest) {
                    future.get();
                }
            } finally {
                starter.shutdownNow();
            }
            return instances;
        } catch (Exception e) {
            instances.close();
            throw e;
        }
    }

    private Object startInstance(int index) throws Exception {
        running.set(index, context.startScheduler(label, NAMES.get(index), stateDirs[index], settings));
        return null;
    }

    static String name(int index) {
        return NAMES.get(index);
    }

    /** kill -9 of instance {@code index}; returns its pid. */
    long kill(int index) throws InterruptedException {
        ChildScheduler child = running.get(index);
        child.killForcibly();
        return child.pid();
    }

    /** Starts instance {@code index} again on its state dir; returns once it runs. */
    void restart(int index) throws Exception {
        startInstance(index);
    }

    /** Stops every running instance (SIGTERM, then SIGKILL). */
    @Override
    public void close() throws InterruptedException {
        for (int i = 0; i < COUNT; i++) {
            ChildScheduler child = running.get(i);
            if (child != null) {
                child.close();
            }
        }
    }
}
