package io.ax.app.internal.docs;

import io.ax.app.config.AxConfig;
import io.ax.app.internal.inputs.ConsumerPositions;
import io.ax.app.internal.lifecycle.StateMachine;
import io.ax.app.internal.topology.AxTopology;
import io.ax.schema.TaskState;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The generated parts of {@code topology-docs/}: the topology's {@code describe()}, the configuration table and
 * the state machine, all from the code itself, so a test can tell when the committed docs drift.
 */
public final class Docs {
    private Docs() {
    }

    /** {@code describe()} of the topology with default settings. */
    public static String topology() {
        return AxTopology.build(new AxConfig(Map.of(AxConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092")), 0, ConsumerPositions.SYNCHRONOUS).describe() + "\n";
    }

    /** The settings of {@link AxConfig} as a Markdown table. */
    public static String config() {
        StringBuilder md = new StringBuilder("# ax scheduler configuration\n\n"
                + "Generated from `AxConfig.CONFIG` (a test fails when this file drifts). Pass settings to `./ax run` with\n"
                + "`--config FILE` (a .properties file) or `-D key=value`. Keys prefixed `streams.` go to Kafka Streams\n"
                + "without the prefix (`streams.num.stream.threads=2`, `streams.producer.linger.ms=1`).\n\n"
                + "| key | type | default | valid values | importance | description |\n|---|---|---|---|---|---|\n");
        for (ConfigDef.ConfigKey key : AxConfig.CONFIG.configKeys().values()) {
            md.append("| `").append(key.name).append("` | ").append(key.type.name().toLowerCase())
                    .append(" | ").append(key.hasDefault() ? "`" + defaultText(key) + "`" : "(required)")
                    .append(" | ").append(key.validator == null ? "" : key.validator.toString().replace("|", "\\|"))
                    .append(" | ").append(key.importance.name().toLowerCase())
                    .append(" | ").append(key.documentation.replace("|", "\\|")).append(" |\n");
        }
        md.append("\nKafka Streams settings ax sets (each can be overridden with `streams.`):\n\n")
                .append("| Streams key | ax's value | why |\n|---|---|---|\n")
                .append("| `processing.guarantee` | `exactly_once_v2` | fire = dispatch + store update + state event in one transaction |\n")
                .append("| `commit.interval.ms` | `50` | under exactly-once a dispatch is visible only when its transaction commits |\n")
                .append("| `poll.ms` | `100` | an idle stream thread blocks in poll this long; ax's consumer returns early when a timer is due |\n")
                .append("| `producer.linger.ms` | `5` | Streams' own default (100 ms) would delay every dispatch |\n")
                .append("| `consumer.max.poll.records` | `2000` | |\n")
                .append("| `consumer.session.timeout.ms` | `10000` | a dead instance's partitions and timers move after 10 s, not 45 s |\n")
                .append("| `consumer.group.instance.id` | application id + host + hash of `ax.state.dir` | static membership: an instance restarted in place takes its partitions back at once |\n")
                .append("| `max.task.idle.ms` | `-1` | the input topics need no timestamp alignment: never wait for an empty partition |\n");
        return md.toString();
    }

    private static String defaultText(ConfigDef.ConfigKey key) {
        if (AxConfig.STATE_DIR_CONFIG.equals(key.name)) {
            return "${java.io.tmpdir}/ax-state";
        }
        return String.valueOf(key.defaultValue);
    }

    /** The execution state machine as a Mermaid diagram and a table, from {@link StateMachine#table()}. */
    public static String stateMachine() {
        StringBuilder md = new StringBuilder("# Execution state machine\n\n"
                + "Generated from `StateMachine` (the one table the scheduler checks every transition against; a test\n"
                + "fails when this file drifts). Every transition is an event on `ax.state`. Besides these states the\n"
                + "state topic carries `REJECTED` (bad input, with its source topic/partition/offset), `IGNORED` (input\n"
                + "that changes nothing: a duplicate request, a cancel of an unknown task, a stale report) and `SKIPPED`\n"
                + "(a periodic occurrence that did not run because the previous one was still in flight).\n\n"
                + "```mermaid\nstateDiagram-v2\n    [*] --> PENDING\n");
        Map<TaskState, Set<TaskState>> table = StateMachine.table();
        table.forEach((from, targets) -> targets.forEach(to -> md.append("    ").append(from).append(" --> ").append(to).append('\n')));
        table.forEach((from, targets) -> {
            if (targets.isEmpty()) {
                md.append("    ").append(from).append(" --> [*]\n");
            }
        });
        md.append("```\n\n| from | to |\n|---|---|\n| (new) | PENDING |\n");
        table.forEach((from, targets) -> md.append("| ").append(from).append(" | ")
                .append(targets.isEmpty() ? "(final)" : targets.stream().map(Enum::name).collect(Collectors.joining(", ")))
                .append(" |\n"));
        return md.toString();
    }
}
