package io.ax.app.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ax.AxTopics;
import io.ax.app.AxScheduler;
import io.ax.app.broker.EmbeddedKafkaBroker;
import io.ax.app.config.AxConfig;
import io.ax.client.AxClient;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real browser (the system's headless chromium through its chromedriver, found on the PATH or
 * given as {@code -Dax.test.chromedriver} / {@code -Dax.test.chromium}; skipped, with the reason, where either is
 * absent) against a scheduler with a token on an embedded broker: a task found by id and by execution id, its detail
 * shown as text (a payload and an error carrying HTML stay text), the token asked for, listings paged, the dead
 * letters, and a Replay that moves the task out of them.
 *
 * <p>{@code -Dax.console.screenshot=PATH} also saves the screenshot of a task's detail there (docs/console.png);
 * it is always written to {@code target/console.png}.
 */
@Tag("integration")
class ConsoleIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String TOKEN = "s3cret";
    private static final String HOSTILE = "<img src=x id=injected>";
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static EmbeddedKafkaBroker broker;
    private static AxScheduler scheduler;
    private static WebDriver browser;
    private static WebDriverWait wait;
    private static String base;
    private static String failedExecutionId;
    /** Why the browser cannot run here, if it cannot: each test is then reported skipped with it. */
    private static Optional<String> noBrowser = Optional.empty();

    @BeforeAll
    static void startSchedulerTasksAndBrowser(@TempDir Path stateDir) throws Exception {
        Optional<Path> chromedriver = executable("ax.test.chromedriver", "chromedriver");
        Optional<Path> chromium = executable("ax.test.chromium", "chromium", "chromium-browser", "google-chrome");
        if (chromedriver.isEmpty() || chromium.isEmpty()) {
            // Not an assumption here: surefire does not report the tests of a class whose @BeforeAll was aborted.
            noBrowser = Optional.of("the browser test needs chromium and chromedriver (Debian: apt-get install chromium "
                    + "chromium-driver); found chromedriver " + chromedriver.map(Path::toString).orElse("none")
                    + ", chromium " + chromium.map(Path::toString).orElse("none"));
            return;
        }

        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        base = "http://127.0.0.1:" + port;
        Map<String, Object> props = new HashMap<>();
        props.put(AxConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(AxConfig.APPLICATION_ID_CONFIG, "it-console");
        props.put(AxConfig.TOPIC_PREFIX_CONFIG, "c.");
        props.put(AxConfig.TOPIC_PARTITIONS_CONFIG, 3);
        props.put(AxConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(AxConfig.HTTP_LISTEN_CONFIG, Integer.toString(port));
        props.put(AxConfig.HTTP_TOKEN_CONFIG, TOKEN);
        AxConfig config = new AxConfig(props);
        AxTopics topics = config.topics();
        scheduler = AxScheduler.start(config);
        scheduler.awaitRunning(Duration.ofMinutes(2));

        try (AxClient client = AxClient.builder().bootstrapServers(broker.bootstrapServers()).topics(topics).build()) {
            client.schedule("invoice-42").jobType("email").owner("billing").priority(3).after(Duration.ofHours(1))
                    .payload("{\"to\":\"ada@example.com\",\"note\":\"" + HOSTILE + "\"}").submit().join();
            client.schedule("report-7").jobType("report").owner("finance").after(Duration.ofHours(2)).submit().join();
            client.schedule("mail-9").jobType("email").owner("billing").maxRetries(0).after(Duration.ZERO)
                    .payload("{\"to\":\"bob@example.com\"}").submit().join();
        }
        await().atMost(WAIT).until(() -> "TRIGGERED".equals(get("/tasks/mail-9").path("state").asText()));
        failedExecutionId = get("/tasks/mail-9").get("execution").get("executionId").asText();
        // The worker's report, as a worker writes it: attempt 1 failed for good.
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topics.results(), "mail-9", MAPPER.createObjectNode()
                    .put("executionId", failedExecutionId).put("attempt", 1).put("status", "FAILED").put("retryable", false)
                    .put("message", "mailbox full " + HOSTILE).put("workerId", "w-console").toString().getBytes(StandardCharsets.UTF_8))).get();
        }
        await().atMost(WAIT).until(() -> "FAILED".equals(get("/tasks/mail-9").path("state").asText()));
        // A worker announcing itself (as a worker in another language writes it), its host hostile HTML.
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", broker.bootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topics.workers(), "node-7", MAPPER.createObjectNode().put("workerId", "node-7")
                    .put("host", HOSTILE).put("version", "1.0.0").put("heartbeatMs", 3_600_000).set("lanes", MAPPER.createArrayNode()
                            .add(MAPPER.createObjectNode().put("jobType", "email").put("limit", 4).put("running", 1).put("waiting", 2)))
                    .toString().getBytes(StandardCharsets.UTF_8))).get();
        }
        await().atMost(WAIT).until(() -> get("/workers").path("alive").asInt() == 1);
        await().atMost(WAIT).until(() -> get("/tasks/invoice-42").path("state").asText().equals("PENDING")
                && get("/tasks/report-7").path("state").asText().equals("PENDING"));

        // The system's chromedriver and chromium, both given explicitly: Selenium Manager is never asked to find or
        // download either.
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.get().toFile())
                .usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions().setBinary(chromium.get().toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                        "--window-size=1280,1000", "--no-first-run", "--disable-extensions");
        browser = new ChromeDriver(service, options);
        browser.manage().window().setSize(new Dimension(1280, 1000));
        wait = new WebDriverWait(browser, WAIT);
    }

    @BeforeEach
    void skipWithoutABrowser() {
        Assumptions.assumeTrue(noBrowser.isEmpty(), noBrowser.orElse(""));
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (scheduler != null) {
            scheduler.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void shouldShowTasksAsTextAskForTheTokenAndReplayADeadLetter() throws Exception {
        browser.get(base + "/");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("search")));
        assertThat(text("token-status")).isEqualTo("no token: reads only");

        // This scheduler wants its token for reads too: the server's own 401 message is shown.
        search("invoice-42");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "401"));
        assertThat(text("message")).contains("missing 'Authorization: Bearer <token>'");
        useToken("nope");
        search("invoice-42");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "wrong token"));
        useToken(TOKEN);
        assertThat(text("token-status")).isEqualTo("token set (this tab only)");

        search("invoice-42");
        wait.until(ExpectedConditions.textToBe(By.id("task-id"), "invoice-42"));
        assertThat(text("task-state")).isEqualTo("PENDING");
        String detail = text("task");
        assertThat(detail).contains("email", "billing", "Read from the scheduler's stores", "next due", "none yet (not fired)");
        assertThat(text("payload")).contains("ada@example.com", HOSTILE);
        assertThat(browser.findElements(By.id("injected"))).as("a payload's HTML stays text").isEmpty();
        assertThat(text("timeline")).as("its history: accepted, pending").contains("PENDING · execution ", "next due");

        // By execution id: the failed task, its attempt and error shown as text.
        search(failedExecutionId);
        wait.until(ExpectedConditions.textToBe(By.id("task-id"), "mail-9"));
        assertThat(text("task-state")).isEqualTo("FAILED");
        assertThat(text("execution-id")).isEqualTo(failedExecutionId);
        assertThat(text("attempts")).contains("fatal", "mailbox full " + HOSTILE);
        assertThat(text("last-error")).contains("mailbox full " + HOSTILE);
        assertThat(text("timeline")).as("its history of state changes, the failed attempt with its error and worker")
                .contains("PENDING → TRIGGERED · execution " + failedExecutionId + " attempt 1",
                        "TRIGGERED → FAILED · execution " + failedExecutionId + " attempt 1 · worker w-console: "
                                + "non-retryable failure: mailbox full " + HOSTILE);
        assertThat(browser.findElements(By.cssSelector("#timeline li.fail"))).as("the failure marked").hasSize(1);
        assertThat(browser.findElements(By.id("injected"))).as("an error's HTML stays text").isEmpty();
        screenshot();

        // An action without the token asks for it and sends nothing.
        browser.findElement(By.id("token-forget")).click();
        browser.findElement(By.id("action-replay")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "replay needs the bearer token"));
        assertThat(get("/tasks/mail-9").path("state").asText()).isEqualTo("FAILED");
        useToken(TOKEN);

        // Counts, a listing by state with its next page, and by job type.
        browser.findElement(By.id("tab-tasks")).click();
        wait.until(ExpectedConditions.textToBe(By.id("stats-total"), "3"));
        assertThat(text("stats-by-state")).contains("PENDING", "FAILED");
        assertThat(text("stats-by-job-type")).contains("email", "report");
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("list-state"))).selectByVisibleText("PENDING");
        WebElement limit = browser.findElement(By.id("list-limit"));
        limit.clear();
        limit.sendKeys("1");
        browser.findElement(By.id("list-go")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("list-table"), "invoice-42"));
        browser.findElement(By.id("list-next")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("list-table"), "report-7"));
        limit.clear();
        limit.sendKeys("20");
        browser.findElement(By.xpath("//table[@id='stats-by-job-type']//button[text()='email']")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("list-table"), "mail-9"));
        assertThat(text("list-table")).contains("invoice-42").doesNotContain("report-7");

        // Health: every instance (this one alone here) and every partition.
        browser.findElement(By.id("tab-health")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("health"), "RUNNING"));
        assertThat(text("health-instances")).contains(base.substring("http://".length()) + " yes RUNNING 0, 1, 2");
        assertThat(browser.findElements(By.cssSelector("#health-partitions tbody tr"))).extracting(WebElement::getText)
                .as("each partition active here, no standby").containsExactly("0 " + base.substring("http://".length()) + " –",
                        "1 " + base.substring("http://".length()) + " –", "2 " + base.substring("http://".length()) + " –");

        // The dead letters, and a Replay: the task runs again (a new execution, nobody reports it) and leaves them.
        browser.findElement(By.id("tab-dead")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("dead-table"), "mail-9"));
        assertThat(text("dead-table")).contains("mailbox full " + HOSTILE, failedExecutionId);
        browser.findElement(By.cssSelector("#dead-table button.replay[data-task='mail-9']")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"), "replay of mail-9 accepted: c.requests-"));
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("dead-empty")));

        browser.findElement(By.id("tab-task")).click();
        search("mail-9");
        wait.until(ExpectedConditions.textToBe(By.id("task-id"), "mail-9"));
        assertThat(text("task-state")).isIn("TRIGGERED", "RUNNING");
        assertThat(text("execution-id")).as("a new execution").isNotEqualTo(failedExecutionId);

        // The failed execution, no longer the latest, is still found by its id: as the task's history tells it.
        search(failedExecutionId);
        wait.until(ExpectedConditions.textToBe(By.id("execution-id"), failedExecutionId));
        assertThat(text("execution-title")).isEqualTo("Execution (from the history, not the latest)");
        assertThat(text("task")).contains("w-console");
        assertThat(text("attempts")).contains("mailbox full " + HOSTILE);
        assertThat(text("timeline")).contains("TRIGGERED → FAILED", "replay of failed execution " + failedExecutionId);

        // A task's link opens it, followed in the page or loaded afresh (the token stays in the tab's sessionStorage).
        browser.get(base + "/#task/invoice-42");
        wait.until(ExpectedConditions.textToBe(By.id("task-id"), "invoice-42"));
        browser.get(base + "/#task/report-7");
        browser.navigate().refresh();
        wait.until(ExpectedConditions.textToBe(By.id("task-id"), "report-7"));
        assertThat(text("token-status")).isEqualTo("token set (this tab only)");
    }

    @Test
    void shouldListTheWorkersAnnouncedAndThoseKnownFromTheirReports() {
        browser.get(base + "/");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("search")));
        useToken(TOKEN);
        try {
            browser.findElement(By.id("tab-workers")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("workers-table"), "node-7"));
            assertThat(text("workers-table")).contains("node-7 ALIVE", "1.0.0", "email 1/4 +2", HOSTILE)
                    .as("the worker of the setup's report, which never announced").contains("w-console REPORTING");
            assertThat(text("workers-counts")).isEqualTo("1 alive, 0 dead, 1 known from their reports only");
            assertThat(browser.findElements(By.id("injected"))).as("a host's HTML stays text").isEmpty();
        } finally {
            browser.findElement(By.id("token-forget")).click(); // the other tests start without a token
        }
    }

    @Test
    void shouldServeTheConsoleWithoutATokenAndOnlyItsOwnFiles() throws Exception {
        HttpResponse<String> page = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(p -> assertThat(p).contains("script-src 'self'"));
        HttpResponse<String> script = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/console/console.js")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(script.statusCode()).isEqualTo(200);
        assertThat(script.body()).doesNotContain("innerHTML =");
        HttpResponse<String> other = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/console/..%2FQueryServer.class")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(other.statusCode()).isEqualTo(404);
        HttpResponse<String> data = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/stats")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(data.statusCode()).as("the data still needs the token").isEqualTo(401);
    }

    private static void search(String id) {
        WebElement search = browser.findElement(By.id("search"));
        search.clear();
        search.sendKeys(id);
        browser.findElement(By.id("search-go")).click();
    }

    private static void useToken(String token) {
        WebElement field = browser.findElement(By.id("token"));
        field.clear();
        field.sendKeys(token);
        browser.findElement(By.id("token-use")).click();
    }

    private static String text(String id) {
        return browser.findElement(By.id(id)).getText();
    }

    private static void screenshot() throws IOException {
        Path png = ((org.openqa.selenium.TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Path target = Path.of("target", "console.png");
        Files.copy(png, target, StandardCopyOption.REPLACE_EXISTING);
        String docs = System.getProperty("ax.console.screenshot");
        if (docs != null && !docs.isBlank()) {
            Files.createDirectories(Path.of(docs).toAbsolutePath().getParent());
            Files.copy(png, Path.of(docs), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static JsonNode get(String path) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(base + path))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            return MAPPER.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A system property's path, else the first of {@code names} on the PATH. */
    private static Optional<Path> executable(String property, String... names) {
        String given = System.getProperty(property);
        if (given != null && !given.isBlank()) {
            return Optional.of(Path.of(given)).filter(Files::isExecutable);
        }
        List<String> dirs = List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator));
        return Stream.of(names).flatMap(name -> dirs.stream().filter(d -> !d.isEmpty()).map(d -> Path.of(d, name)))
                .filter(Files::isExecutable).findFirst();
    }
}
