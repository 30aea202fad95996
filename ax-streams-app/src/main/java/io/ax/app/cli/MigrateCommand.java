package io.ax.app.cli;

import io.ax.AxTopics;
import io.ax.KafkaConnection;
import io.ax.app.internal.migrate.Migration;
import io.ax.app.internal.migrate.MigrationRefusedException;
import io.ax.app.internal.migrate.MigrationSettings;
import io.ax.app.internal.setup.OutputBounds;
import io.ax.validation.ScheduleLimits;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ax migrate}: move a stopped deployment's tasks to new topics with more partitions (topology-docs/MIGRATION.md). */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = {"Move every task of a stopped scheduler (its state, due times, execution ids and attempts) and its"
                + " unprocessed inputs to a new set of topics with more partitions. Safe to run again: a re-run copies only"
                + " what arrived on the old topics since. Procedure: topology-docs/MIGRATION.md.",
                "Exit codes: 0 done, 1 refused or failed (the reason is printed), 2 done but some stored tasks could not be read."})
public final class MigrateCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions connection;

    @Option(names = "--from-prefix", defaultValue = AxTopics.DEFAULT_PREFIX, description = "The old topics' prefix (default: ${DEFAULT-VALUE}).")
    String fromPrefix;

    @Option(names = "--to-prefix", required = true, description = "The new topics' prefix, e.g. ax2.")
    String toPrefix;

    @Option(names = "--partitions", required = true, description = "Partitions of the new topics (at least the old count).")
    int partitions;

    @Option(names = "--application-id", defaultValue = "ax-scheduler", description = "The old scheduler's application.id (default: ${DEFAULT-VALUE}).")
    String applicationId;

    @Option(names = "--to-application-id", description = "The new scheduler's application.id (default: the old one + \"-p\" + partitions).")
    String toApplicationId;

    @Option(names = "--replication-factor", defaultValue = "-1", description = "Replication factor of the new topics; -1 = the broker's default.")
    short replicationFactor;

    @Option(names = "--max-payload-bytes", defaultValue = "" + ScheduleLimits.DEFAULT_MAX_PAYLOAD_BYTES,
            description = "The deployments' ax.max.payload.bytes (default: ${DEFAULT-VALUE}): the new topics take records that large.")
    int maxPayloadBytes;

    @Option(names = "--await", defaultValue = "PT10M", description = "How long to wait for the new scheduler to read the adopts (ISO-8601, default: ${DEFAULT-VALUE}).")
    Duration await;

    @Override
    public Integer call() throws IOException {
        Map<String, Object> clientProps = new HashMap<>(KafkaConnection.select(connection.settings(System.getenv())));
        String target = toApplicationId != null ? toApplicationId : applicationId + "-p" + partitions;
        try {
            MigrationSettings settings = new MigrationSettings(clientProps, new AxTopics(fromPrefix), applicationId,
                    new AxTopics(toPrefix), target, partitions, replicationFactor, OutputBounds.maxRecordBytes(maxPayloadBytes), await);
            Migration.Report report = new Migration(settings, System.out).run();
            System.out.printf("Adopted %s; copied %d request(s), %d report(s), %d retry record(s) from %s* to %s*.%n",
                    report.adopted().isEmpty() ? "no task" : report.adopted(), report.requestsCopied(), report.reportsCopied(),
                    report.retriesCopied(), fromPrefix, toPrefix);
            System.out.println("Next: point workers at " + toPrefix + "dispatch / " + toPrefix + "results and producers at "
                    + toPrefix + "requests, then run this command again to copy what reached the old topics meanwhile.");
            if (!report.unreadable().isEmpty()) {
                System.err.println("Stored tasks that could not be read (not adopted): " + report.unreadable());
                return 2;
            }
            return 0;
        } catch (MigrationRefusedException | IllegalArgumentException e) {
            System.err.println("ax migrate refused: " + e.getMessage());
            return 1;
        }
    }
}
