package io.ax.app.cli;

import io.ax.client.AxClient;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Command;

/** {@code ax pause}: pause a periodic task. */
@Command(name = "pause", mixinStandardHelpOptions = true,
        description = "Pause a periodic task: no occurrence fires until it is resumed (each one due meanwhile is SKIPPED at the resume);"
                + " the execution in flight is not disturbed. The outcome appears on the state topic: the next occurrence's"
                + " PENDING event with the reason \"paused by request\", or IGNORED when the task is unknown, a one-shot,"
                + " finished or already paused.")
public final class PauseCommand extends RequestCommand {
    @Override
    String request() {
        return "pause";
    }

    @Override
    CompletableFuture<RecordMetadata> send(AxClient client, String taskId, String reason) {
        return client.pause(taskId, reason);
    }
}
