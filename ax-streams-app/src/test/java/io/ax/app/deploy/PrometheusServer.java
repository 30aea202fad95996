package io.ax.app.deploy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real Prometheus server ({@code /usr/bin/prometheus}, Debian's package) run by a test as a child process: on a
 * free loopback port, with a configuration generated from the builder (scrape targets, an optional bearer token per
 * scrape job, rule files), scraping and evaluating every second, its storage in a temporary directory that
 * {@link #close()} removes. {@link #start()} returns once {@code /-/ready} answers 200; the child is killed when
 * start fails, on {@link #close()}, and on JVM exit.
 *
 * <pre>{@code
 * assumeTrue(PrometheusServer.binary().isPresent(), PrometheusServer.MISSING);
 * Path rules = PrometheusServer.withoutForDurations(PrometheusServer.shippedRules(), tempDir);
 * try (PrometheusServer prometheus = PrometheusServer.builder()
 *         .scrape(PrometheusServer.SCHEDULER_JOB, List.of("127.0.0.1:" + schedulerPort), token)
 *         .scrape(PrometheusServer.WORKER_JOB, List.of("127.0.0.1:" + workerPort), token)
 *         .rules(rules)
 *         .start()) {
 *     await().atMost(Duration.ofMinutes(1)).until(() -> !prometheus.alerts("AxJobFailureRateHigh", "firing").isEmpty());
 * }
 * }</pre>
 *
 * <p>Thread-safety: queries may come from any thread; {@link #close()} once.
 *
 * <p>One file (over the usual size) because the builder writes the very configuration that the queries below depend
 * on (job names, intervals, the port), and a test reads the fixture as one page.
 */
public final class PrometheusServer implements AutoCloseable {
    /** Why a test that needs the binary is skipped without it. */
    public static final String MISSING = "no Prometheus server binary (/usr/bin/prometheus, or AX_PROMETHEUS=path): "
            + "apt-get install prometheus (.ci/run does)";
    /** The scrape job name the shipped rules expect for scheduler instances (docker/prometheus/prometheus.yml's). */
    public static final String SCHEDULER_JOB = "ax-scheduler";
    /** The scrape job name the shipped rules expect for workers. */
    public static final String WORKER_JOB = "ax-worker";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Pattern FOR_LINE = Pattern.compile("(?m)^(\\s*)for:\\s*\\S+\\s*$");
    private static final int START_ATTEMPTS = 3;

    private final Process process;
    private final Path workDir;
    private final Path log;
    private final int port;
    private final Thread killOnExit;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PrometheusServer(Process process, Path workDir, Path log, int port, Thread killOnExit) {
        this.process = process;
        this.workDir = workDir;
        this.log = log;
        this.port = port;
        this.killOnExit = killOnExit;
    }

    /** The Prometheus server binary: {@code AX_PROMETHEUS}, else {@code /usr/bin/prometheus}, else on the PATH. */
    public static Optional<Path> binary() {
        String given = System.getenv("AX_PROMETHEUS");
        if (given != null && !given.isBlank()) {
            return Optional.of(Path.of(given)).filter(Files::isExecutable);
        }
        Path debian = Path.of("/usr/bin/prometheus");
        if (Files.isExecutable(debian)) {
            return Optional.of(debian);
        }
        return ExternalTool.find("prometheus").map(ExternalTool::executable);
    }

    /** {@code docker/prometheus/ax-alerts.yml}, the alert rules ax ships. */
    public static Path shippedRules() {
        return RepositoryFiles.alertRules();
    }

    /**
     * A copy of a rules file, written into {@code dir}, whose every {@code for:} is {@code 0s}: its alerts fire at the
     * first evaluation whose expression holds, so a test sees them within seconds instead of minutes. Everything else
     * (expressions, labels, annotations) is the original's. The copy is named {@code NAME-no-for.yml}; every line that
     * is a {@code for:} key is rewritten (a rules file has no other such line).
     */
    public static Path withoutForDurations(Path rules, Path dir) {
        try {
            String text = Files.readString(rules, StandardCharsets.UTF_8);
            Matcher matcher = FOR_LINE.matcher(text);
            if (!matcher.find()) {
                throw new IllegalArgumentException("no 'for:' in " + rules);
            }
            String copy = matcher.replaceAll("$1for: 0s");
            Path target = dir.resolve(rules.getFileName().toString().replaceFirst("(\\.ya?ml)?$", "-no-for$1"));
            Files.writeString(target, copy, StandardCharsets.UTF_8);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** One scrape job of the generated configuration. */
    private record ScrapeJob(String name, List<String> targets, Optional<String> bearerToken) {
    }

    /** What to scrape and evaluate; {@link #start()} starts the server. */
    public static final class Builder {
        private final List<ScrapeJob> jobs = new ArrayList<>();
        private final List<Path> ruleFiles = new ArrayList<>();
        private boolean scrapeItself;
        private Duration readyTimeout = Duration.ofSeconds(60);
        private Path binary;

        private Builder() {
        }

        /** A scrape job: {@code GET http://TARGET/metrics} of each {@code host:port} target every second. */
        public Builder scrape(String job, List<String> targets) {
            return add(new ScrapeJob(job, List.copyOf(targets), Optional.empty()));
        }

        /** A scrape job whose requests carry {@code Authorization: Bearer <bearerToken>}. */
        public Builder scrape(String job, List<String> targets, String bearerToken) {
            if (bearerToken == null || bearerToken.isBlank()) {
                throw new IllegalArgumentException("bearerToken must not be blank: " + bearerToken);
            }
            return add(new ScrapeJob(job, List.copyOf(targets), Optional.of(bearerToken)));
        }

        private Builder add(ScrapeJob job) {
            if (job.name().isBlank() || job.targets().isEmpty()) {
                throw new IllegalArgumentException("a scrape job needs a name and targets: " + job);
            }
            jobs.add(job);
            return this;
        }

        /** Also scrape Prometheus' own {@code /metrics}, as scrape job {@code prometheus}. */
        public Builder scrapeItself() {
            scrapeItself = true;
            return this;
        }

        /** Rule files to load (absolute paths are written to the configuration). */
        public Builder rules(Path... files) {
            for (Path file : files) {
                if (!Files.isRegularFile(file)) {
                    throw new IllegalArgumentException("no rules file " + file);
                }
                ruleFiles.add(file.toAbsolutePath());
            }
            return this;
        }

        /** How long {@link #start()} waits for {@code /-/ready} (default 60 s). */
        public Builder readyTimeout(Duration timeout) {
            readyTimeout = timeout;
            return this;
        }

        /** The server binary, when not {@link #binary()}'s. */
        public Builder binary(Path executable) {
            binary = executable;
            return this;
        }

        /**
         * Starts the server and waits until it is ready.
         *
         * @throws IllegalStateException when there is no binary, or it exits or is not ready in time (its log in the
         *     message); the child is killed and its directory removed
         */
        public PrometheusServer start() {
            Path executable = binary != null ? binary : PrometheusServer.binary().orElseThrow(() -> new IllegalStateException(MISSING));
            IllegalStateException last = null;
            for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
                try {
                    return startOnce(executable);
                } catch (PortTakenException e) {
                    last = e; // another process took the free port between our probe and Prometheus' bind: try another
                }
            }
            throw last;
        }

        private PrometheusServer startOnce(Path executable) {
            Path workDir;
            try {
                workDir = Files.createTempDirectory("ax-prometheus-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Process process = null;
            Thread killOnExit = null;
            try {
                int port = freeLoopbackPort();
                Path config = workDir.resolve("prometheus.yml");
                Files.writeString(config, config(port), StandardCharsets.UTF_8);
                Path log = workDir.resolve("prometheus.log");
                process = new ProcessBuilder(executable.toString(),
                        "--config.file=" + config,
                        "--storage.tsdb.path=" + workDir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port)
                        .directory(workDir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
                Process child = process;
                killOnExit = new Thread(child::destroyForcibly, "kill-prometheus-" + port);
                Runtime.getRuntime().addShutdownHook(killOnExit);
                PrometheusServer server = new PrometheusServer(process, workDir, log, port, killOnExit);
                server.awaitReady(readyTimeout);
                return server;
            } catch (IOException e) {
                stop(process, killOnExit, workDir);
                throw new UncheckedIOException(e);
            } catch (RuntimeException | Error e) {
                stop(process, killOnExit, workDir);
                throw e;
            }
        }

        private String config(int port) {
            StringBuilder yaml = new StringBuilder()
                    .append("# generated by ").append(PrometheusServer.class.getName()).append('\n')
                    .append("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n");
            if (!ruleFiles.isEmpty()) {
                yaml.append("rule_files:\n");
                ruleFiles.forEach(file -> yaml.append("  - ").append(quoted(file.toString())).append('\n'));
            }
            yaml.append("scrape_configs:\n");
            List<ScrapeJob> all = new ArrayList<>(jobs);
            if (scrapeItself) {
                all.add(new ScrapeJob("prometheus", List.of("127.0.0.1:" + port), Optional.empty()));
            }
            if (all.isEmpty()) {
                yaml.append("  []\n");
            }
            for (ScrapeJob job : all) {
                yaml.append("  - job_name: ").append(quoted(job.name())).append('\n')
                        .append("    metrics_path: /metrics\n");
                job.bearerToken().ifPresent(token -> yaml.append("    authorization:\n      type: Bearer\n      credentials: ")
                        .append(quoted(token)).append('\n'));
                yaml.append("    static_configs:\n      - targets:\n");
                job.targets().forEach(target -> yaml.append("          - ").append(quoted(target)).append('\n'));
            }
            return yaml.toString();
        }
    }

    /** Prometheus could not bind the port it was given. */
    private static final class PortTakenException extends IllegalStateException {
        PortTakenException(String message) {
            super(message);
        }
    }

    /** A JSON string is a YAML double-quoted scalar: no escaping rules of our own. */
    private static String quoted(String value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private void awaitReady(Duration timeout) {
        long deadlineNs = System.nanoTime() + timeout.toNanos();
        HttpRequest ready = HttpRequest.newBuilder(uri().resolve("/-/ready")).timeout(Duration.ofSeconds(2)).GET().build();
        while (true) {
            if (!process.isAlive()) {
                String text = log();
                String message = "Prometheus exited with " + process.exitValue() + " before it was ready; its log:\n" + text;
                throw text.contains("address already in use") ? new PortTakenException(message) : new IllegalStateException(message);
            }
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for Prometheus", e);
            }
            if (System.nanoTime() - deadlineNs > 0) {
                throw new IllegalStateException("Prometheus not ready within " + timeout + "; its log:\n" + log());
            }
            try {
                Thread.sleep(100); // the poll interval of a deadline-bounded wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for Prometheus", e);
            }
        }
    }

    /** {@code http://127.0.0.1:PORT}. */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    /** Everything the server logged so far: for failure messages. */
    public String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /**
     * An instant query, {@code GET /api/v1/query}: the {@code data.result} of the answer (for a vector, an array of
     * {@code {"metric": {...}, "value": [time, "value"]}}).
     *
     * @throws IllegalStateException when Prometheus answers with an error (a bad expression: its message)
     */
    public JsonNode query(String promql) {
        return get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)).path("result");
    }

    /** The values of an instant query's vector, each with its labels (without {@code __name__}). */
    public List<Sample> samples(String promql) {
        List<Sample> samples = new ArrayList<>();
        for (JsonNode element : query(promql)) {
            Map<String, String> labels = new TreeMap<>(strings(element.path("metric")));
            labels.remove("__name__");
            samples.add(new Sample(labels, Double.parseDouble(element.path("value").path(1).asText())));
        }
        return samples;
    }

    /** One element of an instant vector. */
    public record Sample(Map<String, String> labels, double value) {
    }

    /** {@code GET /api/v1/alerts}: every alert pending or firing now. */
    public List<Alert> alerts() {
        List<Alert> alerts = new ArrayList<>();
        for (JsonNode alert : get("/api/v1/alerts").path("alerts")) {
            Map<String, String> labels = strings(alert.path("labels"));
            alerts.add(new Alert(labels.get("alertname"), alert.path("state").asText(), labels,
                    strings(alert.path("annotations")), Double.parseDouble(alert.path("value").asText("NaN"))));
        }
        alerts.sort(Comparator.comparing(Alert::name).thenComparing(a -> a.labels().toString()));
        return alerts;
    }

    /** The alerts named {@code alertname} in {@code state} ({@code pending} or {@code firing}). */
    public List<Alert> alerts(String alertname, String state) {
        return alerts().stream().filter(a -> a.name().equals(alertname) && a.state().equals(state)).toList();
    }

    /** An alert as {@code /api/v1/alerts} reports it; {@code labels} include {@code alertname}. */
    public record Alert(String name, String state, Map<String, String> labels, Map<String, String> annotations, double value) {
    }

    /** {@code GET /api/v1/rules}: the {@code data.groups} of the answer, each rule with its {@code health} and {@code lastError}. */
    public JsonNode ruleGroups() {
        return get("/api/v1/rules").path("groups");
    }

    private JsonNode get(String pathAndQuery) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(uri() + pathAndQuery)).timeout(Duration.ofSeconds(10)).GET().build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode body = MAPPER.readTree(response.body());
            if (response.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
                throw new IllegalStateException("GET " + pathAndQuery + " answered " + response.statusCode() + ": " + response.body());
            }
            return body.path("data");
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + uri() + pathAndQuery, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static Map<String, String> strings(JsonNode object) {
        Map<String, String> map = new LinkedHashMap<>();
        object.fields().forEachRemaining(field -> map.put(field.getKey(), field.getValue().asText()));
        return map;
    }

    /** Stops the server (SIGTERM, then SIGKILL after 10 s) and removes its directory. */
    @Override
    public void close() {
        stop(process, killOnExit, workDir);
    }

    private static void stop(Process process, Thread killOnExit, Path workDir) {
        try {
            if (process != null) {
                process.destroy();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            if (killOnExit != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(killOnExit);
                } catch (IllegalStateException e) {
                    // the JVM is exiting: the hook runs anyway
                }
            }
            deleteRecursively(workDir);
        }
    }

    private static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            // a temp directory left behind is not worth failing a test for
        }
    }
}
