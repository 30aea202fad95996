package io.ax.app.cli;

import io.ax.client.AxClient;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Command;

/** {@code ax cancel}: cancel a task. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
        description = "Cancel a task: its pending occurrence is dropped and a running execution gets a cancel signal. The"
                + " outcome appears on the state topic: CANCELLED, or IGNORED when the task is unknown or finished.")
public final class CancelCommand extends RequestCommand {
    @Override
    String request() {
        return "cancel";
    }

    @Override
    CompletableFuture<RecordMetadata> send(AxClient client, String taskId, String reason) {
        return client.cancel(taskId, reason);
    }
}
