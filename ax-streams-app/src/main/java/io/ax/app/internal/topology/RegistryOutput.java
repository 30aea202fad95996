package io.ax.app.internal.topology;

import io.ax.AxException;
import io.ax.app.config.AxConfig;
import io.ax.codec.RegistryCodec;
import io.ax.codec.SchemaRegistryClient;
import io.ax.codec.SchemaRegistryClient.RegistryException;
import io.ax.schema.DeadLetter;
import io.ax.schema.DispatchTask;
import java.time.Duration;
import org.apache.avro.specific.SpecificRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ax.output.format=registry}: the schema ids dispatches and dead letters are written with, registered once at
 * startup under {@code <topic>-value} (Confluent's default subject naming, so a registry-aware deserializer finds them).
 */
public record RegistryOutput(int dispatchSchemaId, int deadLetterSchemaId) {

    /**
     * Calls of each registration a start-up makes while the registry is unavailable (no answer in time, unreachable, 5xx):
     * a cold or restarting registry answers its first writes slowly (a loaded test box saw seconds). A wrong URL or a
     * registry that stays down fails the start after 5 × (2 × {@code ax.schema.registry.timeout.ms} + 1 s) at most.
     */
    static final int START_ATTEMPTS = 5;
    private static final Duration START_PAUSE = Duration.ofSeconds(1);
    private static final Logger log = LoggerFactory.getLogger(RegistryOutput.class);

    private static void retrying(RegistryException e) {
        log.warn("Registering an output schema failed, trying again in {}: {}", START_PAUSE, e.getMessage());
    }

    /** Registers the output schemas when the config asks for registry output; null (single-object output) otherwise. */
    static RegistryOutput from(AxConfig config) {
        if (!config.registryOutput()) {
            return null;
        }
        SchemaRegistryClient client = new SchemaRegistryClient(config.registrySettings().orElseThrow());
        String dispatchSubject = config.topics().dispatch() + "-value";
        String deadLetterSubject = config.topics().deadLetter() + "-value";
        try {
            return new RegistryOutput(
                    client.register(dispatchSubject, DispatchTask.getClassSchema(), START_ATTEMPTS, START_PAUSE, RegistryOutput::retrying),
                    client.register(deadLetterSubject, DeadLetter.getClassSchema(), START_ATTEMPTS, START_PAUSE, RegistryOutput::retrying));
        } catch (RegistryException e) {
            throw new AxException("ax.output.format=registry, but the output schemas cannot be registered: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AxException("interrupted while registering the output schemas", e);
        }
    }

    byte[] dispatch(DispatchTask task) {
        return encode(task, dispatchSchemaId);
    }

    byte[] deadLetter(DeadLetter letter) {
        return encode(letter, deadLetterSchemaId);
    }

    private static byte[] encode(SpecificRecord record, int id) {
        return RegistryCodec.encode(record, id);
    }
}
