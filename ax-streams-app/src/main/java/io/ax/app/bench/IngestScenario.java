package io.ax.app.bench;

import io.ax.client.AxClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@code ingest}: how fast the scheduler accepts requests, against the raw baseline of the same size measured
 * first in the same run. n requests due in a day are sent with {@link AxClient}; a request counts as accepted
 * when its PENDING event is visible to a read_committed reader of the state topic (so its stores and timer
 * index were written in a committed exactly-once transaction). {@code accepted_per_s} = n / (last PENDING
 * seen − first send); {@code ratio_vs_raw} = that / raw {@code produce_per_s}.
 */
public final class IngestScenario implements Scenario {
    @Override
    public String name() {
        return "ingest";
    }

    @Override
    public List<ResultLine> run(BenchContext context) throws Exception {
        int n = context.options().nOr(RawScenario.DEFAULT_N);
        ResultLine raw = RawScenario.measure(context, n);
        context.note(raw.toString());
        Path stateDir = context.newDir("ingest-state");
        try (ChildScheduler scheduler = context.startScheduler("ingest", stateDir)) {
            Ingest ingest = Ingest.run(context, "ingest", TaskKeys.TASKS, n,
                    context.clock().millis() + Duration.ofDays(1).toMillis());
            double rawPerS = Double.parseDouble(raw.get("produce_per_s"));
            return List.of(raw, ResultLine.of("ingest", n).add("accepted_per_s", ingest.acceptedPerS())
                    .add("ratio_vs_raw", ingest.acceptedPerS() / rawPerS).add("lost", n - ingest.accepted()));
        }
    }
}
