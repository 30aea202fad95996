package io.ax.app.internal.migrate;

import io.ax.AxTopics;
import java.time.Duration;
import java.util.Map;

/**
 * What {@code ./ax migrate} moves where.
 *
 * @param clientProps     Kafka client settings shared by the admin, consumer and producer (bootstrap, security)
 * @param from            the old deployment's topics
 * @param fromApplicationId the old deployment's application id (its group, its changelog topics)
 * @param to              the new deployment's topics
 * @param toApplicationId the new deployment's application id (its group is watched until it has read the adopts)
 * @param partitions      partitions of the new topics the command creates
 * @param maxRecordBytes  the largest record the new topics must take
 * @param awaitAdoption   how long to wait for the new scheduler to read the adopts before copying reports and retries
 */
public record MigrationSettings(Map<String, Object> clientProps, AxTopics from, String fromApplicationId, AxTopics to,
                                String toApplicationId, int partitions, short replicationFactor, int maxRecordBytes,
                                Duration awaitAdoption) {
    public MigrationSettings {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
        }
        if (from.prefix().equals(to.prefix())) {
            throw new IllegalArgumentException("--to-prefix must differ from --from-prefix: both are " + from.prefix());
        }
        if (fromApplicationId.equals(toApplicationId)) {
            throw new IllegalArgumentException("--to-application-id must differ from --application-id (" + fromApplicationId
                    + "): the new deployment's changelog topics take their names from it");
        }
    }

    /**
     * The group under which the command records how far it has copied each source partition, committed in the same
     * transaction as the copies: a re-run starts where the last one stopped.
     */
    public String progressGroup() {
        return toApplicationId + "-migration";
    }

    /** The transactional id of the command's producer: a second run against the same target fences the first. */
    public String transactionalId() {
        return "ax-migrate-" + toApplicationId;
    }
}
