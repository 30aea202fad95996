package io.ax.app.bench;

import java.util.List;

/**
 * One benchmark: sets up what it needs against the context's broker, measures, cleans up (child JVMs, temp
 * dirs) and returns its results. Must end by itself: every wait is bounded.
 */
public interface Scenario {
    /** The name on the command line and in {@code RESULT scenario=<name>}. */
    String name();

    /** Runs the scenario; the returned lines are printed in order. */
    List<ResultLine> run(BenchContext context) throws Exception;

    /**
     * Whether the scenario starts its own Kafka (e.g. as child processes it kills): then no embedded broker is started
     * for it and {@code --bootstrap} is refused.
     */
    default boolean ownsBrokers() {
        return false;
    }
}
