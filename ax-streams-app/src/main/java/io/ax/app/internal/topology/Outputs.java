package io.ax.app.internal.topology;

import io.ax.AxHeaders;
import io.ax.codec.JsonForms;
import io.ax.codec.WireCodec;
import io.ax.schema.DeadLetter;
import io.ax.schema.DispatchTask;
import io.ax.schema.RetryRecord;
import io.ax.schema.StateChange;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Where the scheduler's output goes: the dispatch, state, retry, dead-letter, flow, calendars and dependency sinks of {@link AxTopology}. Everything
 * forwarded in one processing step or punctuation commits in the same exactly-once transaction as the
 * store updates made in it.
 */
public final class Outputs {
    private final ProcessorContext<String, byte[]> context;
    private final RegistryOutput registry;

    public Outputs(ProcessorContext<String, byte[]> context) {
        this(context, null);
    }

    /** @param registry the registered schemas to write dispatches and dead letters with, or null for single-object */
    public Outputs(ProcessorContext<String, byte[]> context, RegistryOutput registry) {
        this.context = context;
        this.registry = registry;
    }

    /** Writes a dispatch (RUN or CANCEL) with the routing headers of DESIGN.md. */
    public void dispatch(DispatchTask task, long nowMs) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(AxHeaders.KIND, utf8(task.getKind().name()));
        headers.add(AxHeaders.EXECUTION_ID, utf8(task.getExecutionId()));
        headers.add(AxHeaders.ATTEMPT, utf8(Integer.toString(task.getAttempt())));
        headers.add(AxHeaders.JOB_TYPE, utf8(task.getJobType()));
        headers.add(AxHeaders.DUE_AT, utf8(Long.toString(task.getDueAtMs())));
        if (task.getShard() != null) {
            headers.add(AxHeaders.SHARD, utf8(AxHeaders.shard(task.getShard(), task.getShards())));
        }
        context.forward(new Record<>(task.getTaskId(), registry == null ? WireCodec.encode(task) : registry.dispatch(task), nowMs, headers), AxTopology.DISPATCH_SINK);
    }

    /** Writes the RETRY_WAITING log record the scheduler times the next attempt from. */
    public void retry(String taskId, RetryRecord retry, long nowMs) {
        context.forward(new Record<>(taskId, WireCodec.encode(retry), nowMs, new RecordHeaders()), AxTopology.RETRY_SINK);
    }

    /** Writes a failed execution to the dead-letter topic, with headers for kcat. */
    public void deadLetter(DeadLetter letter, long nowMs) {
        DispatchTask dispatch = letter.getDispatch();
        RecordHeaders headers = new RecordHeaders();
        headers.add(AxHeaders.EXECUTION_ID, utf8(dispatch.getExecutionId()));
        headers.add(AxHeaders.ATTEMPT, utf8(Integer.toString(dispatch.getAttempt())));
        headers.add(AxHeaders.JOB_TYPE, utf8(dispatch.getJobType()));
        headers.add(AxHeaders.ERROR, utf8(letter.getReason()));
        if (dispatch.getShard() != null) {
            headers.add(AxHeaders.SHARD, utf8(AxHeaders.shard(dispatch.getShard(), dispatch.getShards())));
        }
        context.forward(new Record<>(dispatch.getTaskId(),
                registry == null ? WireCodec.encode(letter) : registry.deadLetter(letter), nowMs, headers), AxTopology.DEAD_LETTER_SINK);
    }

    /** Writes a flow-control message to the flow topic, keyed by its gate. */
    public void flow(io.ax.app.internal.core.FlowMessage message, long nowMs) {
        context.forward(new Record<>(message.gate(), io.ax.app.internal.flow.FlowCodec.encode(message), nowMs, new RecordHeaders()),
                AxTopology.FLOW_SINK);
    }

    /** Writes one JSON line to the state topic. */
    public void state(StateChange change) {
        context.forward(new Record<>(change.getTaskId(), JsonForms.stateChangeJsonBytes(change), change.getAtMs(),
                new RecordHeaders()), AxTopology.STATE_SINK);
    }

    /** Publishes a calendar to the compacted calendars topic: the accepted request, or a tombstone when null. */
    public void calendar(String name, io.ax.schema.CalendarRequest request, long nowMs) {
        context.forward(new Record<>(name, request == null ? null : WireCodec.encode(request), nowMs, new RecordHeaders()),
                AxTopology.CALENDARS_SINK);
    }

    /** Writes the ACCEPTED line of a calendar request to the state topic. */
    public void calendarAccepted(String name, String reason, io.ax.schema.SourceRecord source, long nowMs) {
        context.forward(new Record<>(name, JsonForms.calendarAcceptedJsonBytes(name, nowMs, reason, source), nowMs,
                new RecordHeaders()), AxTopology.STATE_SINK);
    }

    /** Writes a message of the dependency protocol to ax.deps, keyed by the task whose partition must read it. */
    public void deps(String key, io.ax.schema.DependencySignal signal) {
        context.forward(new Record<>(key, WireCodec.encode(signal), signal.getAtMs(), new RecordHeaders()), AxTopology.DEPS_SINK);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
