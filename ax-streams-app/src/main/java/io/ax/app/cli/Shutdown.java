package io.ax.app.cli;

import java.util.concurrent.CountDownLatch;

/** Blocks the main thread until the JVM is asked to stop (Ctrl-C, SIGTERM), then runs the close actions in order. */
final class Shutdown {
    private Shutdown() {
    }

    static void awaitSignal(AutoCloseable... closeables) throws InterruptedException {
        hookClose(closeables).await();
    }

    /** Registers the close actions for Ctrl-C / SIGTERM; the latch opens when they have run. */
    static CountDownLatch hookClose(AutoCloseable... closeables) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (AutoCloseable closeable : closeables) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    System.err.println("error while stopping: " + e);
                }
            }
            stopped.countDown();
        }, "ax-shutdown"));
        return stopped;
    }
}
