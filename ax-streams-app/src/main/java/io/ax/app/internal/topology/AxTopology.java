package io.ax.app.internal.topology;

import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.flow.ApplyLimitRecord;
import io.ax.app.internal.flow.FlowGate;
import io.ax.app.internal.metrics.RefusedRecords;
import io.ax.app.internal.timer.ConsumerPositions;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.store.FlowStores;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;

/**
 * The scheduler's whole topology, built in one place so the app, the tests and the committed
 * {@code topology-docs/topology.txt} use the very same graph.
 *
 * <pre>
 * ax.requests ─┐                                  ┌─► ax.dispatch
 * ax.results ──┼─► ax-scheduler (tasks, timers, ──┼─► ax.state
 *              │   task index)                    │
 * ax.retry ────┤     └ wall-clock punctuator      ├─► ax.retry (read back: times the retry)
 * ax.deps ─────┘                                  ├─► ax.dead-letter
 *                                                 ├─► ax.deps (read back: dependencies across partitions)
 *                                                 └─► ax.calendars ─► global store ax-calendars
 *                                                     (every instance; the scheduler reads calendars from it)
 *
 * ax.workers ─► ax-worker-registry (store ax-workers) ─┬─► ax.state (DEAD / ALIVE / LEFT lines)
 *                 └ wall-clock punctuator              └─► ax.workers (tombstones of forgotten workers)
 * </pre>
 */
public final class AxTopology {
    public static final String REQUESTS_SOURCE = "ax-requests-source";
    public static final String RESULTS_SOURCE = "ax-results-source";
    public static final String RETRY_SOURCE = "ax-retry-source";
    public static final String SCHEDULER = "ax-scheduler";
    public static final String DISPATCH_SINK = "ax-dispatch-sink";
    public static final String STATE_SINK = "ax-state-sink";
    public static final String RETRY_SINK = "ax-retry-sink";
    public static final String DEAD_LETTER_SINK = "ax-dead-letter-sink";
    public static final String CALENDARS_SINK = "ax-calendars-sink";
    public static final String CALENDARS_SOURCE = "ax-calendars-source";
    public static final String CALENDARS_UPDATER = "ax-calendars-updater";
    public static final String FLOW_GRANTS_SOURCE = "ax-flow-grants-source";
    public static final String FLOW_SINK = "ax-flow-sink";
    public static final String LIMITS_SOURCE = "ax-limits-source";
    public static final String LIMITS_PROCESSOR = "ax-limits";
    public static final String FLOW_SOURCE = "ax-flow-source";
    public static final String FLOW_GATE = "ax-flow-gate";
    public static final String GATE_FLOW_SINK = "ax-flow-gate-flow-sink";
    public static final String GATE_GRANTS_SINK = "ax-flow-gate-grants-sink";
    public static final String DEPS_SOURCE = "ax-deps-source";
    public static final String DEPS_SINK = "ax-deps-sink";
    public static final String WORKERS_SOURCE = "ax-workers-source";
    public static final String WORKER_REGISTRY = "ax-worker-registry";
    public static final String WORKERS_STATE_SINK = "ax-worker-registry-state-sink";
    public static final String WORKERS_SINK = "ax-worker-registry-workers-sink";

    private AxTopology() {
    }

    /**
     * The topology for input topics of {@code partitions} partitions (0: unknown, as in docs and tests), with
     * {@code positions} telling it how far the inputs have been read, recording into metrics of its own.
     */
    public static Topology build(AxConfig config, int partitions, ConsumerPositions positions) {
        return build(config, partitions, positions, new SchedulerMetrics(config.metricsSettings()));
    }

    /** The same, recording into {@code metrics} (the running scheduler's, which its {@code /metrics} serves). */
    public static Topology build(AxConfig config, int partitions, ConsumerPositions positions, SchedulerMetrics metrics) {
        return build(SchedulerSettings.from(config, partitions, positions, metrics));
    }

    /** The same, with the flow topic's partition count known (flow records on another partition than their key's refused). */
    public static Topology build(AxConfig config, int partitions, int flowPartitions, ConsumerPositions positions,
                                 SchedulerMetrics metrics) {
        return build(SchedulerSettings.from(config, partitions, positions, metrics).withFlowPartitions(flowPartitions));
    }

    public static Topology build(SchedulerSettings settings) {
        AxTopics topics = settings.topics();
        settings.metrics().clockSteps(settings.clockSteps());
        Topology topology = new Topology();
        topology.addSource(REQUESTS_SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), topics.requests());
        topology.addSource(RESULTS_SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), topics.results());
        topology.addSource(RETRY_SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), topics.retry());
        topology.addSource(FLOW_GRANTS_SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), topics.flowGrants());
        topology.addSource(DEPS_SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), topics.deps());
        topology.addProcessor(SCHEDULER, () -> new TaskProcessor(settings), REQUESTS_SOURCE, RESULTS_SOURCE, RETRY_SOURCE,
                FLOW_GRANTS_SOURCE, DEPS_SOURCE);
        topology.addStateStore(AxStores.tasks(settings.maxInputBytes()), SCHEDULER);
        topology.addStateStore(AxStores.timers(), SCHEDULER);
        topology.addStateStore(AxStores.index(), SCHEDULER);
        topology.addStateStore(AxStores.dependencies(), SCHEDULER);
        topology.addSink(DISPATCH_SINK, topics.dispatch(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), SCHEDULER);
        topology.addSink(STATE_SINK, topics.state(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), SCHEDULER);
        topology.addSink(RETRY_SINK, topics.retry(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), SCHEDULER);
        topology.addSink(DEAD_LETTER_SINK, topics.deadLetter(), Serdes.String().serializer(), Serdes.ByteArray().serializer(),
                SCHEDULER);
        topology.addSink(CALENDARS_SINK, topics.calendars(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), SCHEDULER);
        topology.addGlobalStore(AxStores.calendars(), CALENDARS_SOURCE, Serdes.String().deserializer(),
                Serdes.ByteArray().deserializer(), topics.calendars(), CALENDARS_UPDATER,
                () -> new CalendarStoreUpdater(settings.metrics().calendarErrors()));
        topology.addSink(FLOW_SINK, topics.flow(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), SCHEDULER);
        addFlowControl(topology, settings);
        topology.addSink(DEPS_SINK, topics.deps(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), SCHEDULER);
        addWorkerRegistry(topology, settings);
        return topology;
    }

    /**
     * The worker registry (README, "Worker registry"): a sub-topology of its own on the workers topic, so no task pays for
     * it; it writes DEAD / ALIVE / LEFT lines to the state topic, and tombstones of workers it forgets to the workers topic.
     */
    private static void addWorkerRegistry(Topology topology, SchedulerSettings settings) {
        AxTopics topics = settings.topics();
        topology.addSource(WORKERS_SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), topics.workers());
        topology.addProcessor(WORKER_REGISTRY, () -> new WorkerRegistryProcessor(AxStores.WORKERS, WORKERS_STATE_SINK, WORKERS_SINK,
                settings), WORKERS_SOURCE);
        topology.addStateStore(AxStores.workers(), WORKER_REGISTRY);
        topology.addSink(WORKERS_STATE_SINK, topics.state(), Serdes.String().serializer(), Serdes.ByteArray().serializer(),
                WORKER_REGISTRY);
        topology.addSink(WORKERS_SINK, topics.workers(), Serdes.String().serializer(), Serdes.ByteArray().serializer(),
                WORKER_REGISTRY);
    }

    /**
     * Flow control (topology-docs/FLOW-CONTROL.md): the limits as a global store every processor reads, and the gates,
     * a sub-topology of their own keyed by gate key, which answer the scheduler's ACQUIREs with grants.
     */
    private static void addFlowControl(Topology topology, SchedulerSettings settings) {
        AxTopics topics = settings.topics();
        RefusedRecords errors = settings.metrics().limitErrors();
        topology.addGlobalStore(FlowStores.limits(), LIMITS_SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(),
                topics.limits(), LIMITS_PROCESSOR, () -> new ApplyLimitRecord(errors, settings.limitsChanges()));
        topology.addSource(FLOW_SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), topics.flow());
        topology.addProcessor(FLOW_GATE, () -> new FlowGate(GATE_FLOW_SINK, GATE_GRANTS_SINK, settings.metrics(), settings.limitsChanges(),
                settings.priorityAgingMs(), key -> KeyPartition.of(key, settings.flowPartitions())), FLOW_SOURCE);
        topology.addStateStore(FlowStores.gates(), FLOW_GATE);
        topology.addSink(GATE_FLOW_SINK, topics.flow(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), FLOW_GATE);
        topology.addSink(GATE_GRANTS_SINK, topics.flowGrants(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), FLOW_GATE);
    }
}
