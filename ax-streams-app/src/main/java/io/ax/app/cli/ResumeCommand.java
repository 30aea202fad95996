package io.ax.app.cli;

import io.ax.client.AxClient;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Command;

/** {@code ax resume}: resume a periodic task. */
@Command(name = "resume", mixinStandardHelpOptions = true,
        description = "Resume a paused periodic task: the occurrences due while it was paused are SKIPPED (one event, with how"
                + " many and from when; the misfire policy does not apply) and the first occurrence after now is timed."
                + " IGNORED when the task is unknown, a one-shot, finished or not paused.")
public final class ResumeCommand extends RequestCommand {
    @Override
    String request() {
        return "resume";
    }

    @Override
    CompletableFuture<RecordMetadata> send(AxClient client, String taskId, String reason) {
        return client.resume(taskId, reason);
    }
}
