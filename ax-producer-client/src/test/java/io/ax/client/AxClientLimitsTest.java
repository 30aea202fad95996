package io.ax.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ax.AxTopics;
import io.ax.FlowLimit;
import io.ax.InvalidRequestException;
import io.ax.validation.ScheduleLimits;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** {@link AxClient#setLimit} and {@link AxClient#removeLimit}: the limits topic's records, and refusals before sending. */
class AxClientLimitsTest {
    private final MockProducer<String, byte[]> producer = new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    private final AxClient client = AxClient.create(producer, AxTopics.defaults(), Clock.systemUTC(), ScheduleLimits.defaults());

    @Test
    void shouldWriteTheLimitAsJsonKeyedByWhatItLimits() throws Exception {
        client.setLimit("type:charge-card", FlowLimit.none().withMaxInFlight(50).withMaxPerSecond(200.0)).get();
        client.setLimit("owner:*", FlowLimit.none().withMaxInFlight(10).withWeight(2)).get();
        client.setLimit("owner:acme", FlowLimit.none().withMaxLiveTasks(1000)).get();
        client.removeLimit("type:email").get();
        assertThat(producer.history()).extracting(ProducerRecord::topic).containsOnly("ax.limits");
        assertThat(producer.history()).extracting(r -> r.key() + " " + (r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8)))
                .containsExactly("type:charge-card {\"maxInFlight\":50,\"maxPerSecond\":200.0}", "owner:* {\"maxInFlight\":10,\"weight\":2}",
                        "owner:acme {\"maxLiveTasks\":1000}",
                        "type:email null");
    }

    @Test
    void shouldRefuseABadLimitBeforeSendingIt() {
        assertThatThrownBy(() -> client.setLimit("type:email", FlowLimit.none().withWeight(3)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("a type key takes");
        assertThatThrownBy(() -> client.setLimit("owner:acme", FlowLimit.none().withMaxNotStarted(3)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("an owner key takes [maxInFlight, maxPerSecond, burst, weight, maxLiveTasks], not maxNotStarted");
        assertThatThrownBy(() -> client.setLimit("type:email", FlowLimit.none().withMaxLiveTasks(5)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("a type key takes [maxInFlight, maxPerSecond, burst, maxNotStarted], not maxLiveTasks");
        assertThatThrownBy(() -> FlowLimit.none().withMaxLiveTasks(0)).isInstanceOf(InvalidRequestException.class)
                .hasMessage("maxLiveTasks must be between 1 and 1000000: 0");
        assertThatThrownBy(() -> FlowLimit.parse("owner:acme", "{\"maxLiveTasks\":2.5}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRequestException.class).hasMessage("maxLiveTasks must be a whole number: 2.5");
        assertThatThrownBy(() -> client.removeLimit("charge-card")).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("limits key must be type:<jobType>, owner:<owner> or owner:*");
        assertThatThrownBy(() -> FlowLimit.none().withMaxInFlight(0)).isInstanceOf(InvalidRequestException.class)
                .hasMessage("maxInFlight must be between 1 and 1000000: 0");
        assertThat(producer.history()).isEmpty();
    }

    /** Issue 28: owners take a rate too, and either key a burst with it. */
    @Test
    void shouldWriteAnOwnersRateWithItsBurstAndRefuseABurstWithoutARate() throws Exception {
        client.setLimit("owner:acme", FlowLimit.none().withMaxPerSecond(5.0).withBurst(20)).get();
        assertThat(new String(producer.history().get(0).value(), StandardCharsets.UTF_8)).isEqualTo("{\"maxPerSecond\":5.0,\"burst\":20}");
        FlowLimit parsed = FlowLimit.parse("owner:acme", "{\"maxPerSecond\":5,\"burst\":20}".getBytes(StandardCharsets.UTF_8));
        assertThat(parsed.bucketSize()).isEqualTo(20.0);
        assertThat(parsed.gatesOwner()).isTrue();
        assertThat(FlowLimit.none().withMaxPerSecond(200.0).bucketSize()).as("100 ms of the rate").isEqualTo(20.0);
        assertThat(FlowLimit.none().withMaxPerSecond(0.5).bucketSize()).as("at least one").isEqualTo(1.0);
        assertThat(FlowLimit.none().withWeight(3).gatesOwner()).as("a weight acts at type gates only").isFalse();
        assertThatThrownBy(() -> FlowLimit.parse("type:email", "{\"burst\":20}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRequestException.class).hasMessage("burst is the size of a maxPerSecond bucket: set maxPerSecond with it");
        assertThatThrownBy(() -> FlowLimit.none().withMaxPerSecond(1.0).withBurst(0)).isInstanceOf(InvalidRequestException.class)
                .hasMessage("burst must be between 1 and 1000000: 0");
    }
}
