package io.ax.app.internal.quarantine;

import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;

/** Wires the quarantine handlers into Kafka Streams' properties. */
public final class Quarantine {
    private Quarantine() {
    }

    /** Sets the processing and production exception handlers, writing to {@code topic}. */
    public static void configure(Properties streamsProps, String topic) {
        streamsProps.put(QuarantineRecords.TOPIC_CONFIG, topic);
        streamsProps.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, QuarantineProcessingErrors.class.getName());
        streamsProps.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, QuarantineProductionErrors.class.getName());
    }

    /** Records quarantined by the schedulers of this JVM. */
    public static long count() {
        return QuarantineRecords.count();
    }
}
