package io.ax.app.cli;

import io.ax.AxTopics;
import io.ax.client.AxClient;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The shape of {@code ax cancel}, {@code ax trigger}, {@code ax pause}, {@code ax resume} and {@code ax replay}: one request about one task, sent through
 * {@link AxClient}; prints what Kafka acknowledged (the outcome itself appears on the state topic).
 */
abstract class RequestCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "TASK", description = "The taskId.")
    String taskId;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    TopicOptions topicOptions;

    @Option(names = "--reason", paramLabel = "R", description = "Free text recorded on the state change it causes.")
    String reason;

    @Option(names = "--json", description = "Print what Kafka acknowledged as one JSON object.")
    boolean json;

    /** The request's name in the output: cancel, trigger, pause, resume, replay. */
    abstract String request();

    abstract CompletableFuture<RecordMetadata> send(AxClient client, String taskId, String reason);

    @Override
    public Integer call() throws Exception {
        Map<String, String> settings = connection.settings(System.getenv());
        AxTopics topics = topicOptions.topics(settings);
        try (AxClient client = OperatorClients.client(settings, topics, "ax-" + request())) {
            RecordMetadata sent = send(client, taskId, reason).get();
            Acknowledged.print(spec.commandLine().getOut(), json, request(), taskId, sent, topics.state());
        }
        return CliErrors.OK;
    }
}
