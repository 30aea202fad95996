package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxHeaders;
import io.ax.AxTopics;
import io.ax.InvalidRequestException;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.cli.Cli;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import io.ax.codec.WireCodec;
import io.ax.schema.DispatchTask;
import io.ax.worker.AxWorker;
import io.ax.worker.Result;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An exclusion calendar end to end on a real embedded broker: set through the client, published to the calendars topic
 * and read back into the global store, named by an every-second interval task; the occurrences in its daily window
 * (three seconds, placed relative to the test's clock) are SKIPPED (the first at once, the others as one coalesced
 * event) and the others run on a real worker; {@code GET /calendars/{name}} shows it as applied. A calendar that
 * excludes everything is refused by the client.
 */
@Tag("integration")
class CalendarIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Clock CLOCK = Clock.systemUTC();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    private static JsonNode json(byte[] value) {
        try {
            return MAPPER.readTree(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<JsonNode> events(TopicRecorder state, String to) {
        return state.seen().stream().map(s -> json(s.record().value())).filter(e -> to.equals(e.path("to").asText())).toList();
    }

    private static List<JsonNode> eventsOf(TopicRecorder state, String taskId) {
        return state.seen().stream().map(s -> json(s.record().value())).filter(e -> taskId.equals(e.path("taskId").asText())).toList();
    }

    private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static LocalTime utcTime(Instant instant) {
        return LocalTime.ofInstant(instant, ZoneOffset.UTC);
    }

    @Test
    void shouldSkipTheOccurrencesInTheCalendarsWindowAndRunTheOthers(@TempDir Path stateDir) throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        AxConfig config = new AxConfig(Map.of(
                AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(port),
                AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                AxConfig.APPLICATION_ID_CONFIG, "it-calendar",
                AxConfig.TOPIC_PREFIX_CONFIG, "calendar.",
                AxConfig.TOPIC_PARTITIONS_CONFIG, 2,
                AxConfig.STATE_DIR_CONFIG, stateDir.toString()));
        AxTopics topics = config.topics();
        try (AxWorker worker = AxWorker.builder().bootstrapServers(broker.bootstrapServers()).topics(topics)
                     .groupId("calendar.workers").handler("tick", context -> Result.success()).build();
             AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build();
             TopicRecorder dispatch = new TopicRecorder(broker.bootstrapServers(), topics.dispatch(), CLOCK);
             TopicRecorder state = new TopicRecorder(broker.bootstrapServers(), topics.state(), CLOCK);
             AxScheduler scheduler = AxScheduler.start(config).awaitRunning(Duration.ofMinutes(2))) {
            worker.start();
            assertThatThrownBy(() -> client.calendar("never").excludeWeekdays(DayOfWeek.values()).set())
                    .isInstanceOf(InvalidRequestException.class).hasMessageContaining("excludes all seven weekdays");

            // The window: the 4th to 6th occurrence of a task starting at a whole second 10 s from now.
            Instant start = Instant.ofEpochSecond(CLOCK.instant().getEpochSecond() + 10);
            client.calendar("quiet").excludeDaily(utcTime(start.plusSeconds(3)), utcTime(start.plusSeconds(6)))
                    .description("three quiet seconds").set().join();
            await().atMost(Duration.ofSeconds(30)).until(() -> !events(state, "ACCEPTED").isEmpty());
            // The calendar reaches the global store a little after its ACCEPTED event: GET /calendars/{name} answers 200
            // once it is there (404 before); a task naming it is accepted from then on.
            String expectedFrom = utcTime(start.plusSeconds(3)).toString();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                HttpResponse<String> answer = get(port, "/calendars/quiet");
                return answer.statusCode() == 200 && json(answer.body().getBytes(StandardCharsets.UTF_8))
                        .path("excludeDaily").path(0).path("from").asText().equals(expectedFrom);
            });
            JsonNode shown = json(get(port, "/calendars/quiet").body().getBytes(StandardCharsets.UTF_8));
            assertThat(shown.get("name").asText()).isEqualTo("quiet");
            assertThat(shown.get("zone").asText()).isEqualTo("UTC");
            assertThat(shown.get("description").asText()).isEqualTo("three quiet seconds");
            assertThat(get(port, "/calendars/nope").statusCode()).isEqualTo(404);
            assertThat(json(get(port, "/calendars").body().getBytes(StandardCharsets.UTF_8)).get("calendars").toString())
                    .isEqualTo("[\"quiet\"]");
            assertThat(CLOCK.instant()).as("setup within the 10 s the window was placed ahead").isBefore(start.minusSeconds(1));
            client.schedule("ticker").jobType("tick").every(Duration.ofSeconds(1), start).calendar("quiet").submit().join();

            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> eventsOf(state, "ticker").stream()
                    .anyMatch(e -> "SUCCESS".equals(e.path("to").asText())
                            && Instant.parse(e.get("dueAt").asText()).isAfter(start.plusSeconds(7))));
            client.cancel("ticker").join();

            List<Instant> ran = dispatch.seen().stream()
                    .filter(s -> "ticker".equals(s.record().key()))
                    .filter(s -> "RUN".equals(new String(s.record().headers().lastHeader(AxHeaders.KIND).value(), StandardCharsets.UTF_8)))
                    .map(s -> Instant.ofEpochMilli(WireCodec.decodeBinary(s.record().value(), DispatchTask.class).getDueAtMs()))
                    .toList();
            assertThat(ran).contains(start, start.plusSeconds(1), start.plusSeconds(2), start.plusSeconds(6), start.plusSeconds(7))
                    .doesNotContain(start.plusSeconds(3), start.plusSeconds(4), start.plusSeconds(5));
            List<JsonNode> skipped = eventsOf(state, "ticker").stream().filter(e -> "SKIPPED".equals(e.path("to").asText())).toList();
            assertThat(skipped).as("the first excluded at once, the other two as one event").hasSize(2);
            assertThat(skipped.get(0).get("dueAt").asText()).isEqualTo(start.plusSeconds(3).toString());
            assertThat(skipped.get(0).get("calendar").asText()).isEqualTo("quiet");
            assertThat(skipped.get(0).get("reason").asText()).contains("daily window");
            assertThat(skipped.get(1).get("skipped").asLong()).isEqualTo(2);
            assertThat(skipped.get(1).get("dueAt").asText()).isEqualTo(start.plusSeconds(4).toString());
            assertThat(skipped.get(1).get("lastDueAt").asText()).isEqualTo(start.plusSeconds(5).toString());
            assertThat(json(get(port, "/tasks/ticker").body().getBytes(StandardCharsets.UTF_8)).path("calendar").asText())
                    .isEqualTo("quiet");

            // The CLI: set a calendar, see it through the query API, delete it.
            String bootstrap = broker.bootstrapServers();
            Cli.Run set = Cli.run("calendar", "set", "cli-cal", "--bootstrap", bootstrap, "--topic-prefix", topics.prefix(),
                    "--zone", "Europe/Berlin", "--exclude-weekday", "SUNDAY", "--exclude-range", "2026-12-24..2026-12-26",
                    "--exclude-daily", "22:00-06:00", "--description", "from the CLI");
            assertThat(set.exitCode()).as(set.err()).isZero();
            assertThat(set.out()).contains("calendar set of cli-cal acknowledged");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> get(port, "/calendars/cli-cal").statusCode() == 200);
            Cli.Run show = Cli.run("calendar", "show", "cli-cal", "--http", "127.0.0.1:" + port);
            assertThat(show.exitCode()).as(show.err()).isZero();
            JsonNode cliCalendar = json(show.out().getBytes(StandardCharsets.UTF_8));
            assertThat(cliCalendar.get("zone").asText()).isEqualTo("Europe/Berlin");
            assertThat(cliCalendar.get("excludeWeekdays").toString()).isEqualTo("[\"SUNDAY\"]");
            assertThat(cliCalendar.get("excludeRanges").toString()).isEqualTo("[{\"from\":\"2026-12-24\",\"to\":\"2026-12-26\"}]");
            assertThat(cliCalendar.get("excludeDaily").toString()).isEqualTo("[{\"from\":\"22:00\",\"to\":\"06:00\"}]");
            Cli.Run delete = Cli.run("calendar", "delete", "cli-cal", "--bootstrap", bootstrap, "--topic-prefix", topics.prefix());
            assertThat(delete.exitCode()).as(delete.err()).isZero();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> get(port, "/calendars/cli-cal").statusCode() == 404);
            Cli.Run gone = Cli.run("calendar", "show", "cli-cal", "--http", "127.0.0.1:" + port);
            assertThat(gone.exitCode()).isEqualTo(1);
            assertThat(gone.err()).contains("no calendar cli-cal");
        }
    }
}
