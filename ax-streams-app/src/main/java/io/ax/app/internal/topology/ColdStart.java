package io.ax.app.internal.topology;

import io.ax.app.internal.core.Decision;
import io.ax.app.internal.core.Effect;
import io.ax.app.internal.core.Input;
import io.ax.app.internal.core.Rules;
import io.ax.app.internal.metrics.SchedulerMetrics;
import io.ax.app.internal.store.AxStores;
import io.ax.app.internal.store.IndexEntry;
import io.ax.codec.JsonForms;
import io.ax.codec.WireCodec;
import io.ax.schema.DispatchTask;
import io.ax.schema.ScheduleRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StoredTask;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the code of an accept and a fire on a sample task, on nothing, before the scheduler takes its first record: the
 * decoders (JSON and Avro), the rules, the task record's codec, the index entry, the dispatch and the state event's
 * JSON. A fresh JVM otherwise loads and initializes all of it on the first record (0.6-1.1 s measured on this project's
 * 2-core box, the decoders 0.3-0.4 s of it) and runs it interpreted for the next hundreds, slower than 100 requests/s
 * arrive, while the first due tasks wait behind them. Repeated for at most {@code budgetMs} so the JIT compiles the
 * hottest of it. Also registers a fire's metrics once in a registry of their own ({@link SchedulerMetrics#warmUp}), which
 * the first fire paid otherwise (17-29 ms). Touches no store, no topic and no metric of the scheduler; a failure here is
 * logged at DEBUG and changes nothing.
 */
public final class ColdStart {
    private static final Logger LOG = LoggerFactory.getLogger(ColdStart.class);
    private static final String TASK = "ax-cold-start";
    private static final java.util.concurrent.atomic.AtomicBoolean RAN = new java.util.concurrent.atomic.AtomicBoolean();

    private ColdStart() {
    }

    /**
     * Runs {@link #once} up to {@code maxRounds} times, for at most {@code budgetMs} of {@code settings.time()}, the first
     * time it is called in this JVM (the code is warm for every scheduler after); returns the rounds run (0 when the first
     * one failed or this JVM ran them already).
     */
    public static int run(SchedulerSettings settings, int maxRounds, long budgetMs) {
        if (!RAN.compareAndSet(false, true)) {
            return 0;
        }
        try {
            SchedulerMetrics.warmUp();
        } catch (RuntimeException | LinkageError e) {
            LOG.debug("cold start of the metrics not done: {}", e.toString());
        }
        return rounds(settings, maxRounds, budgetMs);
    }

    static int rounds(SchedulerSettings settings, int maxRounds, long budgetMs) {
        long startMs = settings.time().milliseconds();
        int rounds = 0;
        while (rounds < maxRounds && once(settings) > 0) {
            rounds++;
            if (settings.time().milliseconds() - startMs >= budgetMs) {
                break;
            }
        }
        LOG.debug("accept path run {} times in {} ms before the first record", rounds, settings.time().milliseconds() - startMs);
        return rounds;
    }

    /** Decodes, decides and encodes a sample one-shot task (JSON and Avro forms) and its fire; returns the records made. */
    static int once(SchedulerSettings settings) {
        int made = 0;
        try {
            long nowMs = settings.time().milliseconds();
            Rules rules = new Rules(settings.rules());
            byte[] json = "{\"jobType\":\"cold-start\",\"delayMs\":1000,\"payload\":{\"orderId\":\"1\"},\"priority\":1}"
                    .getBytes(StandardCharsets.UTF_8);
            ScheduleRequest fromJson = (ScheduleRequest) settings.inputCodec().decodeRequest(json);
            ScheduleRequest request = (ScheduleRequest) settings.inputCodec().decodeRequest(WireCodec.encode(fromJson));
            Decision accepted = rules.decide(null, new Input.Schedule(TASK, request, nowMs,
                    new SourceRecord(settings.topics().requests(), 0, 0L)), nowMs);
            made += encode(accepted);
            StoredTask task = accepted.task();
            if (task != null) {
                StoredTask stored = AxStores.STORED_TASK_SERDE.deserializer().deserialize(TASK,
                        AxStores.STORED_TASK_SERDE.serializer().serialize(TASK, task));
                IndexEntry.of(stored);
                for (Effect effect : accepted.effects()) {
                    if (effect instanceof Effect.SetTimer set) {
                        made += encode(rules.decide(stored, new Input.TimerFired(TASK, set.kind(), set.dueAtMs()), set.dueAtMs()));
                    }
                }
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.debug("cold start of the accept path not done: {}", e.toString());
        }
        return made;
    }

    private static int encode(Decision decision) {
        int made = 0;
        for (Effect effect : decision.effects()) {
            if (effect instanceof Effect.Event event) {
                made += JsonForms.stateChangeJsonBytes(event.change()).length > 0 ? 1 : 0;
            } else if (effect instanceof Effect.Dispatch dispatch) {
                DispatchTask task = dispatch.task();
                made += WireCodec.encode(task).length > 0 ? 1 : 0;
            }
        }
        if (decision.task() != null) {
            made += AxStores.STORED_TASK_SERDE.serializer().serialize(TASK, decision.task()).length > 0 ? 1 : 0;
        }
        return made;
    }
}
