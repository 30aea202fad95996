package io.ax.app.internal.quarantine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ax.AxHeaders;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

class QuarantineHandlersTest {
    private static final Map<String, Object> CONFIGS = Map.of(QuarantineRecords.TOPIC_CONFIG, "ax.quarantine");

    private static ErrorHandlerContext input(byte[] key, byte[] value) {
        return new ErrorHandlerContext() {
            public String topic() { return "ax.requests"; }
            public int partition() { return 4; }
            public long offset() { return 1234; }
            public Headers headers() { return new RecordHeaders(); }
            public String processorNodeId() { return "ax-scheduler"; }
            public TaskId taskId() { return new TaskId(0, 4); }
            public long timestamp() { return 0; }
            public byte[] sourceRawKey() { return key; }
            public byte[] sourceRawValue() { return value; }
        };
    }

    private static String header(ProducerRecord<byte[], byte[]> record, String name) {
        return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldQuarantineAnInputThatThrewWithItsCoordinatesAndResume() {
        QuarantineProcessingErrors handler = new QuarantineProcessingErrors();
        handler.configure(CONFIGS);
        long before = Quarantine.count();
        ProcessingExceptionHandler.Response response = handler.handleError(input("k".getBytes(), "v".getBytes()), null,
                new IllegalStateException("boom"));
        assertThat(response.result()).isEqualTo(ProcessingExceptionHandler.Result.RESUME);
        List<ProducerRecord<byte[], byte[]>> records = response.deadLetterQueueRecords();
        assertThat(records).singleElement().satisfies(record -> {
            assertThat(record.topic()).isEqualTo("ax.quarantine");
            assertThat(record.key()).asString().isEqualTo("k");
            assertThat(record.value()).asString().isEqualTo("v");
            assertThat(header(record, AxHeaders.SOURCE_TOPIC)).isEqualTo("ax.requests");
            assertThat(header(record, AxHeaders.SOURCE_PARTITION)).isEqualTo("4");
            assertThat(header(record, AxHeaders.SOURCE_OFFSET)).isEqualTo("1234");
            assertThat(header(record, AxHeaders.STREAM_TASK)).isEqualTo("0_4");
            assertThat(header(record, AxHeaders.ERROR)).isEqualTo("java.lang.IllegalStateException: boom");
        });
        assertThat(Quarantine.count()).isEqualTo(before + 1);
    }

    @Test
    void shouldLeaveOutAKeyOrValueTooLargeToQuarantine() {
        QuarantineProcessingErrors handler = new QuarantineProcessingErrors();
        handler.configure(CONFIGS);
        ProducerRecord<byte[], byte[]> record = handler.handleError(input(new byte[2000], new byte[600_000]), null,
                new IllegalStateException("x".repeat(5000))).deadLetterQueueRecords().get(0);
        assertThat(record.key()).isNull();
        assertThat(record.value()).isNull();
        assertThat(header(record, AxHeaders.ERROR)).hasSizeLessThanOrEqualTo(1000);
    }

    @Test
    void shouldDropAnOutputTheBrokerRefusesQuarantiningItsDescriptionAndRetryRetriableErrors() {
        QuarantineProductionErrors handler = new QuarantineProductionErrors();
        handler.configure(CONFIGS);
        ProducerRecord<byte[], byte[]> output = new ProducerRecord<>("ax.state", new byte[10], new byte[2_000_000]);
        ProductionExceptionHandler.Response response = handler.handleError(input(null, null), output,
                new RecordTooLargeException("too large"));
        assertThat(response.result()).isEqualTo(ProductionExceptionHandler.Result.RESUME);
        assertThat(response.deadLetterQueueRecords()).singleElement().satisfies(record -> {
            assertThat(record.value()).isNull();
            assertThat(header(record, AxHeaders.OUTPUT_TOPIC)).isEqualTo("ax.state");
            assertThat(header(record, AxHeaders.OUTPUT_BYTES)).isEqualTo("2000010");
            assertThat(header(record, AxHeaders.SOURCE_OFFSET)).isEqualTo("1234");
        });
        assertThat(handler.handleError(input(null, null), output, new TimeoutException("later")).result())
                .isEqualTo(ProductionExceptionHandler.Result.RETRY);
    }
}
