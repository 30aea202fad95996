package io.ax.app.fuzz;

import java.util.SplittableRandom;

/** Makes one hostile input of one family; every random choice comes from {@code random}, so a seed replays it. */
@FunctionalInterface
interface Maker {
    HostileInput make(SplittableRandom random);
}
