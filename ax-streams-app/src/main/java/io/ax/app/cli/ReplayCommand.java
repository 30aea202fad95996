package io.ax.app.cli;

import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.ProducerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax replay}: run a dead-lettered task again. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Run a dead-lettered (FAILED) task again as a new execution. The outcome appears on the state"
                + " topic: PENDING then TRIGGERED, or IGNORED with the reason.")
public final class ReplayCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "The taskId to replay.")
    String taskId;

    @Mixin
    ConnectionOptions connection;

    @Option(names = "--reason", description = "Recorded on the new execution's PENDING event.")
    String reason;

    @Option(names = "--topic-prefix", description = "Topic prefix (default: ax.topic.prefix from --config or -D, else "
            + AxTopics.DEFAULT_PREFIX + ").")
    String prefix;

    @Override
    public Integer call() throws Exception {
        Map<String, String> settings = connection.settings(System.getenv());
        AxTopics topics = new AxTopics(prefix != null ? prefix
                : settings.getOrDefault(AxConfig.TOPIC_PREFIX_CONFIG, AxTopics.DEFAULT_PREFIX));
        try (AxClient client = AxClient.builder().connectionProperties(settings).topics(topics)
                .producerProperty(ProducerConfig.CLIENT_ID_CONFIG, "ax-replay").build()) {
            var sent = client.replay(taskId, reason).get();
            System.out.println("replay of " + taskId + " sent to " + sent.topic() + "-" + sent.partition() + "@" + sent.offset()
                    + "; watch " + topics.state() + " for the outcome");
        }
        return 0;
    }
}
