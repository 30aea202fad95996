package io.ax.worker.internal;

import io.ax.AxTopics;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/** What a {@link DispatchLoop} is built from; assembled by {@code AxWorker.Builder}. */
public record WorkerParts(Consumer<String, byte[]> consumer, Producer<String, byte[]> producer, AxTopics topics,
                          ExecutionRunner runner, Reports reports, ReportSink sink, Heartbeats heartbeats,
                          ExecutorService handlerThreads, Map<String, Integer> limits, BacklogLimits backlogLimits,
                          boolean failUnknownJobTypes, Clock clock) {
}
