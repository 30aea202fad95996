package io.ax.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.AxTopics;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ax tail}: follows the state topic as a {@code read_committed} consumer (so only committed transitions show,
 * as workers see dispatches) and prints one line per change. It joins no consumer group and commits nothing: any
 * number of operators can tail at once without disturbing each other.
 */
@Command(name = "tail", mixinStandardHelpOptions = true,
        description = "Follow the state topic: one line per state change, rejection and ignored input, as they are"
                + " committed. Ctrl-C stops it.")
public final class TailCommand implements Callable<Integer> {
    private static final Duration POLL = Duration.ofMillis(200);

    @Spec
    CommandSpec spec;

    @Option(names = "--task", paramLabel = "T", description = "Only this taskId.")
    String task;

    @Option(names = "--job-type", paramLabel = "J", description = "Only this job type.")
    String jobType;

    @Option(names = "--from-beginning", description = "Start from the oldest event kept (default: from now on).")
    boolean fromBeginning;

    @Option(names = "--limit", paramLabel = "N", description = "Stop after N matching events (default: never).")
    Long limit;

    @Option(names = "--json", description = "Print each event as the JSON object on the topic, one per line.")
    boolean json;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    TopicOptions topicOptions;

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile KafkaConsumer<String, String> consumer;

    @Override
    public Integer call() {
        if (limit != null && limit < 1) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--limit must be at least 1: " + limit);
        }
        Map<String, String> settings = connection.settings(System.getenv());
        AxTopics topics = topicOptions.topics(settings);
        PrintWriter out = spec.commandLine().getOut();
        Thread hook = new Thread(this::stop, "ax-tail-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try (KafkaConsumer<String, String> tail = OperatorClients.consumer(settings, "ax-tail", new StringDeserializer())) {
            consumer = tail;
            start(tail, topics.state());
            follow(tail, out);
        } catch (WakeupException e) {
            // stopped
        } finally {
            done.countDown();
            removeHook(hook);
        }
        return CliErrors.OK;
    }

    private void start(KafkaConsumer<String, String> tail, String topic) {
        List<TopicPartition> partitions = OperatorClients.partitions(tail, topic);
        tail.assign(partitions);
        if (fromBeginning) {
            tail.seekToBeginning(partitions);
        } else {
            tail.seekToEnd(partitions);
        }
        partitions.forEach(tail::position); // fixes the start now, so nothing committed after this line is missed
        PrintWriter err = spec.commandLine().getErr();
        err.println("ax tail: following " + topic + (fromBeginning ? " from the beginning" : " from now on")
                + " (Ctrl-C stops)");
        err.flush();
    }

    private void follow(KafkaConsumer<String, String> tail, PrintWriter out) {
        long printed = 0;
        while (running.get()) {
            for (ConsumerRecord<String, String> record : tail.poll(POLL)) {
                JsonNode event = StateLines.parse(record.value());
                if (!matches(record.key(), event)) {
                    continue;
                }
                out.println(json || event == null ? record.value() : StateLines.format(event));
                printed++;
                if (limit != null && printed >= limit) {
                    out.flush();
                    return;
                }
            }
            out.flush();
        }
    }

    private boolean matches(String key, JsonNode event) {
        if (task != null && !task.equals(key)) {
            return false;
        }
        return jobType == null || (event != null && jobType.equals(event.path("jobType").asText(null)));
    }

    /** Stops a running tail from another thread (Ctrl-C, a test) and waits for it to close its consumer. */
    void stop() {
        running.set(false);
        KafkaConsumer<String, String> current = consumer;
        if (current != null) {
            current.wakeup();
        }
        try {
            done.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook is what stopped us
        }
    }
}
