package io.ax.codec;

import io.ax.codec.SchemaRegistryClient.RegistryException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * Writer schemas by registry id: a bounded cache in front of {@link SchemaRegistryClient}, with a circuit breaker so
 * that a registry outage costs the calling (stream) thread at most one timeout per backoff period, not one per record.
 *
 * <ul>
 *   <li>A fetched schema is kept (ids are immutable in a registry), least recently used evicted past {@code cacheMax}.
 *   <li>An id the registry does not know (HTTP 404) is remembered as unknown for the backoff period.
 *   <li>An answer that is not a usable Avro schema fails that record only (and is asked again next time).
 *   <li>Any other failure (unreachable, timeout, 5xx, an answer that is not a schema) opens the breaker: for the backoff
 *       period every id not in the cache fails at once with the last failure as the reason, without a call. The first
 *       lookup after the period calls the registry again (half-open); its outcome closes or reopens the breaker.
 * </ul>
 *
 * <p>Trade-off: a record whose schema cannot be fetched is failed (the scheduler rejects it), not retried, so an
 * outage never holds up the records behind it; the cost is that such records must be replayed by the operator.
 *
 * <p>Thread-safe. The registry call is made outside the lock, so one thread waiting on the registry does not block
 * the others' cache hits; two threads missing the same id at once may both fetch it.
 */
public final class RegistrySchemas {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RegistrySchemas.class);
    private final SchemaRegistryClient client;
    private final Clock clock;
    private final int cacheMax;
    private final long backoffMs;
    /** How long a half-open probe may take: the whole exchange's bound (twice the timeout). */
    private final long probeMs;
    private final Map<Integer, Schema> schemas;
    private final Map<Integer, Long> unknownUntilMs;
    private long openUntilMs = Long.MIN_VALUE;
    private String openReason;
    private long calls;

    public RegistrySchemas(SchemaRegistryClient client, RegistrySettings settings, Clock clock) {
        this.client = client;
        this.clock = clock;
        this.cacheMax = settings.cacheMax();
        this.backoffMs = settings.failureBackoff().toMillis();
        this.probeMs = 2 * settings.timeout().toMillis();
        this.schemas = lru(cacheMax);
        this.unknownUntilMs = lru(cacheMax);
    }

    /** Why a writer schema could not be had: {@link #unknownId()} when the registry said the id does not exist. */
    public static final class UnavailableSchemaException extends Exception {
        private final boolean unknownId;

        UnavailableSchemaException(String message, boolean unknownId) {
            super(message);
            this.unknownId = unknownId;
        }

        public boolean unknownId() {
            return unknownId;
        }
    }

    /** The writer schema registered as {@code id}, from the cache or the registry. */
    public Schema writerSchema(int id) throws UnavailableSchemaException {
        long nowMs = clock.millis();
        synchronized (this) {
            Schema cached = schemas.get(id);
            if (cached != null) {
                return cached;
            }
            Long unknownUntil = unknownUntilMs.get(id);
            if (unknownUntil != null && nowMs < unknownUntil) {
                throw new UnavailableSchemaException("schema id " + id + " is not in the schema registry", true);
            }
            if (nowMs < openUntilMs) {
                throw new UnavailableSchemaException("schema registry unavailable (not called again until "
                        + java.time.Instant.ofEpochMilli(openUntilMs) + ", schema id " + id + "): " + openReason, false);
            }
            if (openReason != null) {
                // Half-open: this call probes the registry; the other threads keep failing fast until it is answered.
                openUntilMs = nowMs + probeMs;
            }
            calls++;
        }
        try {
            Schema schema = client.schemaById(id);
            synchronized (this) {
                schemas.put(id, schema);
                unknownUntilMs.remove(id);
                close();
            }
            return schema;
        } catch (RegistryException e) {
            long failedAtMs = clock.millis();
            synchronized (this) {
                if (e.notFound() || e.invalid()) {
                    close(); // the registry answered
                }
                if (e.notFound()) {
                    unknownUntilMs.put(id, failedAtMs + backoffMs);
                    throw new UnavailableSchemaException("schema id " + id + " is not in the schema registry", true);
                }
                if (e.invalid()) {
                    // The registry answered: not an outage. Not cached, so a fixed registry entry is picked up.
                    throw new UnavailableSchemaException(e.getMessage(), false);
                }
                if (openReason == null) {
                    log.warn("Schema registry unavailable; records with schema ids not cached are rejected without calling it"
                            + " until {}: {}", java.time.Instant.ofEpochMilli(failedAtMs + backoffMs), e.getMessage());
                }
                openUntilMs = failedAtMs + backoffMs;
                openReason = e.getMessage();
            }
            throw new UnavailableSchemaException("schema registry unavailable: " + e.getMessage(), false);
        }
    }

    private void close() {
        if (openReason != null) {
            log.info("Schema registry answers again");
        }
        openUntilMs = Long.MIN_VALUE;
        openReason = null;
    }

    /** How many times the registry was called (visible for testing). */
    synchronized long calls() {
        return calls;
    }

    private static <V> Map<Integer, V> lru(int max) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, V> eldest) {
                return size() > max;
            }
        };
    }
}
