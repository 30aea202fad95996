package io.ax.codec;

import io.ax.AxException;
import io.ax.codec.SchemaRegistryClient.RegistryException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

/**
 * Writes records in the schema-registry wire format under one subject (e.g. {@code ax.requests-value}), registering
 * each record schema the first time a record of it is written and keeping its id. Thread-safe.
 *
 * <p>Several record types under one subject (ScheduleRequest, CancelRequest, ... on {@code ax.requests}) need a
 * subject whose compatibility rule allows it: Apicurio's default (no rule) does; on Confluent set the subject's
 * compatibility to NONE.
 */
public final class RegistryEncoder {
    private final SchemaRegistryClient client;
    private final String subject;
    private final Map<Schema, Integer> ids = new ConcurrentHashMap<>();

    public RegistryEncoder(SchemaRegistryClient client, String subject) {
        this.client = client;
        this.subject = subject;
    }

    /** @throws AxException when the schema is not registered yet and cannot be */
    public byte[] encode(SpecificRecord record) {
        Integer id = ids.get(record.getSchema());
        if (id == null) {
            try {
                id = client.register(subject, record.getSchema());
            } catch (RegistryException e) {
                throw new AxException("cannot register " + record.getSchema().getFullName() + " under " + subject + ": "
                        + e.getMessage(), e);
            }
            ids.put(record.getSchema(), id);
        }
        return RegistryCodec.encode(record, id);
    }
}
