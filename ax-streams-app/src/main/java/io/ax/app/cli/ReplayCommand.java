package io.ax.app.cli;

import io.ax.client.AxClient;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Command;

/** {@code ax replay}: run a dead-lettered task again. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = "Run a dead-lettered (FAILED) task again as a new execution. The outcome appears on the state"
                + " topic: PENDING then TRIGGERED, or IGNORED with the reason.")
public final class ReplayCommand extends RequestCommand {
    @Override
    String request() {
        return "replay";
    }

    @Override
    CompletableFuture<RecordMetadata> send(AxClient client, String taskId, String reason) {
        return client.replay(taskId, reason);
    }
}
