package io.ax.app.internal.topology;

import io.ax.InvalidRequestException;
import io.ax.app.internal.core.EventCode;
import io.ax.app.internal.metrics.PartitionMetrics;
import io.ax.calendar.ExclusionCalendar;
import io.ax.codec.JsonForms;
import io.ax.codec.WireCodec;
import io.ax.schema.CalendarRequest;
import io.ax.schema.SourceRecord;
import io.ax.schema.StateChange;
import io.ax.schema.TaskState;
import io.ax.validation.CalendarValidator;
import io.ax.validation.Quote;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A calendar request read on the requests topic by whichever partition its name hashes to. Valid ones
 * ({@link CalendarValidator}) are published to the compacted calendars topic, the value the accepted request (a
 * tombstone for a delete), in the same transaction as an {@code ACCEPTED} line on the state topic; every instance reads
 * that topic into its global calendar store, so a task on any partition sees every calendar. A bad one is REJECTED on
 * the state topic with the reason (and {@code calendar} naming it); a delete of a calendar that does not exist is
 * IGNORED. Bounded: the request's lists are bounded before anything is compiled.
 */
final class ApplyCalendarRequest {
    private static final Logger log = LoggerFactory.getLogger(ApplyCalendarRequest.class);
    /** The {@code input} label of calendar requests in the request metrics. */
    static final String INPUT = "calendar";

    private final ProcessorContext<String, byte[]> context;
    private final CalendarStore calendars;
    private final PartitionMetrics metrics;

    ApplyCalendarRequest(ProcessorContext<String, byte[]> context, CalendarStore calendars, PartitionMetrics metrics) {
        this.context = context;
        this.calendars = calendars;
        this.metrics = metrics;
    }

    /** Validates and applies one calendar request: published and ACCEPTED, REJECTED, or IGNORED. */
    void apply(String name, CalendarRequest request, SourceRecord source, long nowMs) {
        ExclusionCalendar calendar;
        try {
            calendar = CalendarValidator.validate(name, request, nowMs);
        } catch (InvalidRequestException e) {
            log.warn("Rejected calendar {} from {}-{}@{}: {}", Quote.key(name), source.getTopic(), source.getPartition(),
                    source.getOffset(), e.getMessage());
            state(StateChange.newBuilder().setTaskId(Quote.key(name)).setTo(TaskState.REJECTED).setAtMs(nowMs)
                    .setCalendar(Quote.key(name)).setReason(Quote.truncate("calendar " + Quote.of(name) + " rejected: "
                            + e.getMessage(), 2000)).setSource(source).build(),
                    e.field() == null ? EventCode.INVALID_RECORD : EventCode.INVALID_FIELD);
            return;
        }
        if (request.getDelete()) {
            if (calendars.bytes(name) == null) {
                state(StateChange.newBuilder().setTaskId(name).setTo(TaskState.IGNORED).setAtMs(nowMs).setCalendar(name)
                        .setReason("delete of calendar " + Quote.of(name) + ", which does not exist").setSource(source).build(),
                        EventCode.UNKNOWN_TASK);
                return;
            }
            publish(name, null, nowMs);
            accepted(name, "calendar deleted: tasks naming it run unexcluded from their next occurrence on", source, nowMs);
            return;
        }
        publish(name, WireCodec.encode(request), nowMs);
        accepted(name, "calendar set: excludes " + calendar.summary() + (request.getDescription() == null ? ""
                : " (" + Quote.truncate(request.getDescription(), 200) + ")") + "; applies to the next occurrences of every task"
                + " naming it", source, nowMs);
    }

    private void publish(String name, byte[] value, long nowMs) {
        context.forward(new Record<>(name, value, nowMs, new RecordHeaders()), AxTopology.CALENDARS_SINK);
    }

    private void accepted(String name, String reason, SourceRecord source, long nowMs) {
        metrics.accepted(INPUT);
        log.info("Calendar {}: {}", name, reason);
        context.forward(new Record<>(name, JsonForms.calendarAcceptedJsonBytes(name, nowMs, reason, source), nowMs,
                new RecordHeaders()), AxTopology.STATE_SINK);
    }

    private void state(StateChange change, EventCode code) {
        metrics.observe(change, code, null, INPUT);
        context.forward(new Record<>(change.getTaskId(), JsonForms.stateChangeJsonBytes(change), change.getAtMs(),
                new RecordHeaders()), AxTopology.STATE_SINK);
    }
}
