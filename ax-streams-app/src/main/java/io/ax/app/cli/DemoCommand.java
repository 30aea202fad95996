package io.ax.app.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.ax.app.demo.Demo;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/** {@code ax demo}: everything in one process, on a real embedded broker. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start a real embedded Kafka broker, the scheduler and a worker; schedule a few tasks and show"
                + " every state change live; then stop.")
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--seconds", defaultValue = "10", description = "How long to watch (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Override
    public Integer call() throws Exception {
        quietLogs();
        new Demo(System.out, Clock.systemUTC(), Duration.ofSeconds(seconds)).run();
        return 0;
    }

    /** The demo prints ax.state itself; log lines about the same events would only interleave with it. */
    private static void quietLogs() {
        ((Logger) LoggerFactory.getLogger("io.ax")).setLevel(Level.ERROR);
        ((Logger) LoggerFactory.getLogger("org.apache.kafka")).setLevel(Level.ERROR);
    }
}
