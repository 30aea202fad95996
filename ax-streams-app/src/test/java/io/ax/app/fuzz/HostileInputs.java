package io.ax.app.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The fuzz generator: input {@code #i} of seed {@code s} is a pure function of {@code (s, i)}, so a failure report's
 * seed and index reproduce it alone. Families take turns (input i uses family {@code (i + s) mod families}), so
 * every family is tried once the count reaches their number; each draws its details from its own random stream.
 */
public final class HostileInputs {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final List<Maker> MAKERS = makers();

    private final long seed;

    public HostileInputs(long seed) {
        this.seed = seed;
    }

    private static List<Maker> makers() {
        List<Maker> makers = new ArrayList<>();
        makers.addAll(HostileRequestJson.makers());
        makers.addAll(HostileRequestAvro.makers());
        makers.addAll(HostileReportJson.makers());
        makers.addAll(HostileReportAvro.makers());
        makers.addAll(HostileLiveReports.makers());
        makers.addAll(HostileRetries.makers());
        makers.addAll(HostileEnvelopes.makers());
        makers.addAll(HostileWorkflowRequests.makers());
        return List.copyOf(makers);
    }

    /** How many families there are: a count below this leaves some untried. */
    public static int families() {
        return MAKERS.size();
    }

    public long seed() {
        return seed;
    }

    public HostileInput get(int index) {
        SplittableRandom random = new SplittableRandom(seed ^ (index * GOLDEN));
        Maker maker = MAKERS.get((int) Math.floorMod(index + seed, (long) MAKERS.size()));
        return maker.make(random).withOrigin("seed " + seed + " #" + index);
    }
}
