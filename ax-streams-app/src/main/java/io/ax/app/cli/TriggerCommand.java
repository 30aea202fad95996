package io.ax.app.cli;

import io.ax.client.AxClient;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Command;

/** {@code ax trigger}: run a pending task now. */
@Command(name = "trigger", mixinStandardHelpOptions = true,
        description = "Run a PENDING task now: a one-shot fires now instead of at its due time; a periodic task runs one"
                + " extra occurrence now and keeps its schedule. The outcome appears on the state topic: TRIGGERED, or"
                + " IGNORED when the task is unknown, already running or finished.")
public final class TriggerCommand extends RequestCommand {
    @Override
    String request() {
        return "trigger";
    }

    @Override
    CompletableFuture<RecordMetadata> send(AxClient client, String taskId, String reason) {
        return client.trigger(taskId, reason);
    }
}
