package io.ax.worker.internal;

import io.ax.AxHeaders;
import io.ax.codec.WireCodec;
import io.ax.schema.DispatchKind;
import io.ax.schema.DispatchTask;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Dispatch records as the scheduler writes them: encoded value plus routing headers. */
public final class Dispatches {
    public static final String TOPIC = "ax.dispatch";

    private Dispatches() {
    }

    public static DispatchTask task(String taskId, String jobType, Instant dueAt) {
        return new DispatchTask(DispatchKind.RUN, taskId, "exec-" + taskId, 1, jobType,
                ByteBuffer.wrap(("payload of " + taskId).getBytes(StandardCharsets.UTF_8)), dueAt.toEpochMilli(),
                dueAt.toEpochMilli(), 6, "team-a", 30_000L, null, null, null);
    }

    public static ConsumerRecord<String, byte[]> record(DispatchTask task) {
        return record(task, 0, 0);
    }

    public static ConsumerRecord<String, byte[]> record(DispatchTask task, int partition, long offset) {
        ConsumerRecord<String, byte[]> record = withoutHeaders(task.getTaskId(), WireCodec.encode(task), partition, offset);
        header(record, AxHeaders.KIND, task.getKind().name());
        header(record, AxHeaders.EXECUTION_ID, task.getExecutionId());
        header(record, AxHeaders.ATTEMPT, Integer.toString(task.getAttempt()));
        header(record, AxHeaders.JOB_TYPE, task.getJobType());
        header(record, AxHeaders.DUE_AT, Long.toString(task.getDueAtMs()));
        return record;
    }

    public static ConsumerRecord<String, byte[]> withoutHeaders(String key, byte[] value, int partition, long offset) {
        return new ConsumerRecord<>(TOPIC, partition, offset, key, value);
    }

    public static ConsumerRecord<String, byte[]> header(ConsumerRecord<String, byte[]> record, String name, String value) {
        record.headers().add(name, value.getBytes(StandardCharsets.UTF_8));
        return record;
    }
}
