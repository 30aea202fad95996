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
}
