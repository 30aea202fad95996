package io.ax.worker.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the scheduler's flow-control gates (topology-docs/FLOW-CONTROL.md) that an execution held at them started and
 * ended, straight on the flow topic, keyed by gate key: one STARTED and one RELEASE per {@code ax-gate} header of its
 * dispatch. So a slot is free as soon as the handler returns, not only once the scheduler has read the report, which
 * can wait behind a backlog of other reports for many seconds. The scheduler releases it again when it applies the
 * report; the gate takes the second release of an attempt as a no-op. Best effort: a notice that is not acknowledged
 * is logged and the scheduler's own release stands. Thread-safe, as the producer is.
 */
public interface GateNotices {
    GateNotices NONE = new GateNotices() {
        @Override
        public void started(Execution execution) {
        }

        @Override
        public void ended(Execution execution) {
        }
    };

    /** The worker reported STARTED for the execution (a gate's maxNotStarted counts it as started). */
    void started(Execution execution);

    /** The worker reported how the execution ended (or that it was cancelled before it started). */
    void ended(Execution execution);

    /** The gates whose slots {@code headers} say the dispatch holds, in chain order; empty when ungated. */
    static List<String> gatesOf(Headers headers) {
        List<String> gates = new ArrayList<>();
        for (Header header : headers.headers(AxHeaders.GATE)) {
            if (header.value() != null && header.value().length > 0 && gates.size() < Kafka.MAX_GATES) {
                gates.add(new String(header.value(), StandardCharsets.UTF_8));
            }
        }
        return gates;
    }

    /** Notices on the flow topic, in the JSON form the gates read (one record per gate, keyed by gate key). */
    final class Kafka implements GateNotices {
        private static final Logger log = LoggerFactory.getLogger(GateNotices.class);
        private static final ObjectMapper JSON = new ObjectMapper();
        /** A dispatch names at most an owner gate and a type gate; more headers than this are not the scheduler's. */
        static final int MAX_GATES = 8;

        private final Producer<String, byte[]> producer;
        private final String flowTopic;

        public Kafka(Producer<String, byte[]> producer, String flowTopic) {
            this.producer = producer;
            this.flowTopic = flowTopic;
        }

        @Override
        public void started(Execution execution) {
            send("STARTED", execution);
        }

        @Override
        public void ended(Execution execution) {
            send("RELEASE", execution);
        }

        private void send(String kind, Execution execution) {
            List<String> gates = gatesOf(execution.record().headers());
            for (int i = 0; i < gates.size(); i++) {
                Map<String, Object> message = new LinkedHashMap<>();
                message.put("kind", kind);
                message.put("taskId", execution.taskId());
                message.put("executionId", execution.executionId());
                message.put("attempt", execution.task().getAttempt());
                message.put("gates", gates);
                message.put("gateIndex", i);
                try {
                    producer.send(new ProducerRecord<>(flowTopic, gates.get(i), JSON.writeValueAsBytes(message)), (metadata, error) -> {
                        if (error != null) {
                            log.warn("A {} notice for {} to the flow topic was not acknowledged (the scheduler frees the slot "
                                    + "when it reads the report): {}", kind, execution, error.toString());
                        }
                    });
                } catch (JsonProcessingException | RuntimeException e) {
                    log.warn("Could not send a {} notice for {} to the flow topic: {}", kind, execution, e.toString());
                }
            }
        }
    }
}
