package io.ax.app.internal.topology;

import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import io.ax.app.internal.store.AxStores;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;

/**
 * The scheduler's whole topology, built in one place so the app, the tests and the committed
 * {@code topology-docs/topology.txt} use the very same graph.
 *
 * <pre>
 * ax.requests ─┐                                  ┌─► ax.dispatch
 *              ├─► ax-scheduler (tasks, timers) ──┤
 * ax.results ──┘     └ wall-clock punctuator      └─► ax.state
 * </pre>
 */
public final class AxTopology {
    public static final String REQUESTS_SOURCE = "ax-requests-source";
    public static final String RESULTS_SOURCE = "ax-results-source";
    public static final String SCHEDULER = "ax-scheduler";
    public static final String DISPATCH_SINK = "ax-dispatch-sink";
    public static final String STATE_SINK = "ax-state-sink";

    private AxTopology() {
    }

    public static Topology build(AxConfig config) {
        return build(SchedulerSettings.from(config));
    }

    public static Topology build(SchedulerSettings settings) {
        AxTopics topics = settings.topics();
        Topology topology = new Topology();
        topology.addSource(REQUESTS_SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), topics.requests());
        topology.addSource(RESULTS_SOURCE, Serdes.String().deserializer(), Serdes.ByteArray().deserializer(), topics.results());
        topology.addProcessor(SCHEDULER, () -> new TaskProcessor(settings), REQUESTS_SOURCE, RESULTS_SOURCE);
        topology.addStateStore(AxStores.tasks(), SCHEDULER);
        topology.addStateStore(AxStores.timers(), SCHEDULER);
        topology.addSink(DISPATCH_SINK, topics.dispatch(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), SCHEDULER);
        topology.addSink(STATE_SINK, topics.state(), Serdes.String().serializer(), Serdes.ByteArray().serializer(), SCHEDULER);
        return topology;
    }
}
