package io.ax.worker.internal;

import io.ax.AxTopics;
import io.ax.codec.RegistryCodec;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * What a {@link DispatchLoop} is built from; assembled by {@code AxWorker.Builder} through {@link #builder()}, which
 * names each part. Every part is required but the metrics (none by default), the priority aging (1 s), the dispatch codec (no registry) and the
 * announcer (none: the worker is not announced).
 */
public record WorkerParts(Consumer<String, byte[]> consumer, Producer<String, byte[]> producer, AxTopics topics,
                          ExecutionRunner runner, Reports reports, ReportSink sink, Heartbeats heartbeats,
                          ExecutorService handlerThreads, Map<String, Integer> limits, BacklogLimits backlogLimits,
                          boolean failUnknownJobTypes, Clock clock, Duration commitTimeout, WorkerMetrics metrics,
                          Duration priorityAging, RegistryCodec dispatchCodec, Map<String, Integer> ownerWeights,
                          Announcer announcer) {
    public WorkerParts {
        Objects.requireNonNull(consumer, "consumer");
        Objects.requireNonNull(producer, "producer");
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(runner, "runner");
        Objects.requireNonNull(reports, "reports");
        Objects.requireNonNull(sink, "sink");
        Objects.requireNonNull(heartbeats, "heartbeats");
        Objects.requireNonNull(handlerThreads, "handlerThreads");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(backlogLimits, "backlogLimits");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(commitTimeout, "commitTimeout");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(priorityAging, "priorityAging");
        Objects.requireNonNull(dispatchCodec, "dispatchCodec");
        ownerWeights = Map.copyOf(Objects.requireNonNull(ownerWeights, "ownerWeights"));
    }

    /** The weight of {@code owner} (null: tasks without one) in a lane's fair share: as given, else 1. */
    public int ownerWeight(String owner) {
        return owner == null ? 1 : ownerWeights.getOrDefault(owner, 1);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Names the parts of a {@link WorkerParts}; {@code failUnknownJobTypes} defaults to false. Not thread-safe. */
    public static final class Builder {
        private Consumer<String, byte[]> consumer;
        private Producer<String, byte[]> producer;
        private AxTopics topics;
        private ExecutionRunner runner;
        private Reports reports;
        private ReportSink sink;
        private Heartbeats heartbeats;
        private ExecutorService handlerThreads;
        private Map<String, Integer> limits;
        private BacklogLimits backlogLimits;
        private boolean failUnknownJobTypes;
        private Clock clock;
        private Duration commitTimeout;
        private WorkerMetrics metrics = WorkerMetrics.none();
        private Duration priorityAging = Duration.ofSeconds(1);
        private Map<String, Integer> ownerWeights = Map.of();
        private RegistryCodec dispatchCodec = RegistryCodec.NONE;
        private Announcer announcer;

        private Builder() {
        }

        public Builder consumer(Consumer<String, byte[]> consumer) {
            this.consumer = consumer;
            return this;
        }

        public Builder producer(Producer<String, byte[]> producer) {
            this.producer = producer;
            return this;
        }

        public Builder topics(AxTopics topics) {
            this.topics = topics;
            return this;
        }

        public Builder runner(ExecutionRunner runner) {
            this.runner = runner;
            return this;
        }

        public Builder reports(Reports reports) {
            this.reports = reports;
            return this;
        }

        public Builder sink(ReportSink sink) {
            this.sink = sink;
            return this;
        }

        public Builder heartbeats(Heartbeats heartbeats) {
            this.heartbeats = heartbeats;
            return this;
        }

        public Builder handlerThreads(ExecutorService handlerThreads) {
            this.handlerThreads = handlerThreads;
            return this;
        }

        /** How many handlers of each job type may run at once; its keys are the job types served. */
        public Builder limits(Map<String, Integer> limits) {
            this.limits = limits;
            return this;
        }

        public Builder backlogLimits(BacklogLimits backlogLimits) {
            this.backlogLimits = backlogLimits;
            return this;
        }

        public Builder failUnknownJobTypes(boolean failUnknownJobTypes) {
            this.failUnknownJobTypes = failUnknownJobTypes;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** How long one offset commit may hold the loop ({@link Committer}). */
        public Builder commitTimeout(Duration commitTimeout) {
            this.commitTimeout = commitTimeout;
            return this;
        }

        public Builder metrics(WorkerMetrics metrics) {
            this.metrics = metrics;
            return this;
        }

        /** How much earlier queueing one priority level is worth in a lane ({@link Lanes}). */
        public Builder priorityAging(Duration priorityAging) {
            this.priorityAging = priorityAging;
            return this;
        }

        /** Owners' weights in a lane's fair share ({@link io.ax.fair.FairTurns}); an owner not named has weight 1. */
        public Builder ownerWeights(Map<String, Integer> ownerWeights) {
            this.ownerWeights = ownerWeights;
            return this;
        }

        /** How dispatches are decoded; without a registry (the default) a registry-format dispatch is undecodable. */
        public Builder dispatchCodec(RegistryCodec dispatchCodec) {
            this.dispatchCodec = dispatchCodec;
            return this;
        }

        /** @throws NullPointerException naming the first part not given */
        /** Announces the worker on the workers topic every heartbeat; none (null) by default. */
        public Builder announcer(Announcer announcer) {
            this.announcer = announcer;
            return this;
        }

        public WorkerParts build() {
            return new WorkerParts(consumer, producer, topics, runner, reports, sink, heartbeats, handlerThreads, limits,
                    backlogLimits, failUnknownJobTypes, clock, commitTimeout, metrics, priorityAging, dispatchCodec,
                    ownerWeights, announcer);
        }
    }
}
