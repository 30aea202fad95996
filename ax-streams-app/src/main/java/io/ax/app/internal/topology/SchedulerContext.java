package io.ax.app.internal.topology;

import io.ax.app.internal.lifecycle.Events;
import io.ax.app.internal.schedule.Timers;
import io.ax.app.internal.store.TaskStore;
import io.ax.schema.StoredTask;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * What one stream task's transitions share: its stores, its timers, its outputs, the settings and the
 * clock. Lives as long as the {@link TaskProcessor} that made it; not thread-safe.
 */
public record SchedulerContext(TaskStore tasks, Timers timers, Outputs outputs, Events events,
                               SchedulerSettings settings, ProcessorContext<String, byte[]> processorContext) {

    /** The scheduler's clock: wall-clock time as Kafka Streams sees it (mockable in TopologyTestDriver). */
    public long nowMs() {
        return processorContext.currentSystemTimeMs();
    }

    /** The execution timeout in force for {@code task}, ms. */
    public long timeoutMs(StoredTask task) {
        Long timeoutMs = task.getRequest().getTimeoutMs();
        return timeoutMs != null ? timeoutMs : settings.defaultTimeoutMs();
    }
}
