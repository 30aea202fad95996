package io.ax.app.it;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real Apicurio Registry 3.0.9 (in-memory storage) as a child process on a free port, from its Maven Central zip
 * ({@code io.apicurio:apicurio-registry-app:3.0.9:zip:all}). Its parent POM is not served, so Maven cannot resolve the
 * zip as a dependency; fetch the file itself with Maven's wagon (README, Producing with a schema registry):
 * <pre>
 * mvn org.codehaus.mojo:wagon-maven-plugin:2.0.2:download-single -Dwagon.url=https://repo.maven.apache.org/maven2 \
 *   -Dwagon.fromFile=io/apicurio/apicurio-registry-app/3.0.9/apicurio-registry-app-3.0.9-all.zip -Dwagon.toDir=/tmp/ax-apicurio
 * </pre>
 * The zip is looked for at {@code -Dax.apicurio.zip}, else {@code <java.io.tmpdir>/ax-apicurio/}. When it is missing or
 * the registry does not come up, the calling tests are skipped (a JUnit assumption) with the reason.
 */
final class ApicurioRegistry implements AutoCloseable {
    static final String ZIP_NAME = "apicurio-registry-app-3.0.9-all.zip";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Process process;
    private final int port;
    private final Path log;

    private ApicurioRegistry(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts one, or skips the calling test (assumption) saying why it cannot. */
    static ApicurioRegistry startOrSkip() throws IOException, InterruptedException {
        Path zip = Path.of(System.getProperty("ax.apicurio.zip",
                Path.of(System.getProperty("java.io.tmpdir"), "ax-apicurio", ZIP_NAME).toString()));
        Assumptions.assumeTrue(Files.isRegularFile(zip), "Apicurio Registry zip not found at " + zip
                + ": fetch it with the wagon command in ApicurioRegistry's Javadoc (or set -Dax.apicurio.zip)");
        Path home = zip.resolveSibling("apicurio-registry-app-3.0.9");
        Path runner = home.resolve("apicurio-registry-app-3.0.9-runner.jar");
        if (!Files.isRegularFile(runner)) {
            unzip(zip, home);
        }
        int port = freePort();
        Path log = Files.createTempFile("apicurio-", ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(List.of(java, "-Xmx512m", "-Dquarkus.http.port=" + port,
                "-Dquarkus.http.host=127.0.0.1", "-jar", runner.toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ApicurioRegistry registry = new ApicurioRegistry(process, port, log);
        if (!registry.awaitReady()) {
            String tail = Files.readString(log);
            registry.close();
            Assumptions.abort("Apicurio Registry did not become ready within " + START_TIMEOUT + "; its log ends: "
                    + tail.substring(Math.max(0, tail.length() - 800)));
        }
        return registry;
    }

    /** The Confluent-compatible API root (what {@code ax.schema.registry.url} takes). */
    String ccompatUrl() {
        return "http://127.0.0.1:" + port + "/apis/ccompat/v7";
    }

    /** Apicurio's own v3 API root (what its serde's {@code apicurio.registry.url} takes). */
    String v3Url() {
        return "http://127.0.0.1:" + port + "/apis/registry/v3";
    }

    private boolean awaitReady() throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        long deadlineNs = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadlineNs && process.isAlive()) {
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(ccompatUrl() + "/subjects"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return true;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200); // polling interval of a readiness check, not a wait for an outcome
        }
        return false;
    }

    private static void unzip(Path zip, Path home) throws IOException {
        Path partial = Files.createTempDirectory(zip.getParent(), "unpacking-");
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                Path target = partial.resolve(entry.getName()).normalize();
                if (!target.startsWith(partial)) {
                    throw new IOException("zip entry outside the target: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        try {
            Files.move(partial, home, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            if (!Files.isRegularFile(home.resolve("apicurio-registry-app-3.0.9-runner.jar"))) {
                throw e;
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Stops the registry and waits for its process to end. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            // a temp file
        }
    }

}
