package io.ax.app.internal.topology;

import io.ax.AxException;
import io.ax.app.config.AxConfig;
import io.ax.codec.RegistryCodec;
import io.ax.codec.SchemaRegistryClient;
import io.ax.codec.SchemaRegistryClient.RegistryException;
import io.ax.schema.DeadLetter;
import io.ax.schema.DispatchTask;
import org.apache.avro.specific.SpecificRecord;

/**
 * {@code ax.output.format=registry}: the schema ids dispatches and dead letters are written with, registered once at
 * startup under {@code <topic>-value} (Confluent's default subject naming, so a registry-aware deserializer finds them).
 */
public record RegistryOutput(int dispatchSchemaId, int deadLetterSchemaId) {

    /** Registers the output schemas when the config asks for registry output; null (single-object output) otherwise. */
    static RegistryOutput from(AxConfig config) {
        if (!config.registryOutput()) {
            return null;
        }
        SchemaRegistryClient client = new SchemaRegistryClient(config.registrySettings().orElseThrow());
        String dispatchSubject = config.topics().dispatch() + "-value";
        String deadLetterSubject = config.topics().deadLetter() + "-value";
        try {
            return new RegistryOutput(client.register(dispatchSubject, DispatchTask.getClassSchema()),
                    client.register(deadLetterSubject, DeadLetter.getClassSchema()));
        } catch (RegistryException e) {
            throw new AxException("ax.output.format=registry, but the output schemas cannot be registered: " + e.getMessage(), e);
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
