package io.ax.app.cli;

import io.ax.AxTopics;
import io.ax.client.AxClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ax replay}: run a dead-lettered task again. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Run a dead-lettered (FAILED) task again as a new execution. The outcome appears on the state"
                + " topic: PENDING then TRIGGERED, or IGNORED with the reason.")
public final class ReplayCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "The taskId to replay.")
    String taskId;

    @Option(names = "--bootstrap", required = true, description = "Kafka bootstrap servers, host:port[,host:port].")
    String bootstrap;

    @Option(names = "--reason", description = "Recorded on the new execution's PENDING event.")
    String reason;

    @Option(names = "--topic-prefix", defaultValue = AxTopics.DEFAULT_PREFIX, description = "Topic prefix (default: ${DEFAULT-VALUE}).")
    String prefix;

    @Override
    public Integer call() throws Exception {
        try (AxClient client = AxClient.builder().bootstrapServers(bootstrap).topics(new AxTopics(prefix)).build()) {
            var sent = client.replay(taskId, reason).get();
            System.out.println("replay of " + taskId + " sent to " + sent.topic() + "-" + sent.partition() + "@" + sent.offset()
                    + "; watch " + prefix + "state for the outcome");
        }
        return 0;
    }
}
