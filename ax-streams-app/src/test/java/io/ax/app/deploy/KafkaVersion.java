package io.ax.app.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The version of the Kafka clients ax is built with (the parent pom's kafka.version), as kafka-clients records it. */
final class KafkaVersion {
    private KafkaVersion() {
    }

    static String current() {
        try (InputStream in = KafkaVersion.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in == null) {
                throw new IllegalStateException("kafka-clients has no kafka/kafka-version.properties");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
