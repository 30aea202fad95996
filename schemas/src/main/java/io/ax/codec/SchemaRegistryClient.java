package io.ax.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.avro.Schema;

/**
 * The two calls ax makes to a Confluent-compatible schema registry, over the JDK's HTTP client: fetch a schema by id
 * ({@code GET /schemas/ids/{id}}) and register one under a subject ({@code POST /subjects/{subject}/versions}).
 * Every call is bounded in time by the settings' timeout (connect, answer headers, and twice it for the whole
 * exchange) and in memory: an answer over {@link #MAX_RESPONSE_BYTES} is refused as soon as its bytes pass the bound.
 * Thread-safe.
 */
public final class SchemaRegistryClient {
    /** Largest registry answer read; ax's largest schema is a few KB. */
    static final int MAX_RESPONSE_BYTES = 512 * 1024;
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RegistrySettings settings;
    private final HttpClient http;
    private final String authorization;

    public SchemaRegistryClient(RegistrySettings settings) {
        this.settings = settings;
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(settings.timeout())
                .followRedirects(HttpClient.Redirect.NEVER);
        if (settings.truststorePath() != null && !settings.truststorePath().isBlank()) {
            builder.sslContext(sslContext(settings));
        }
        this.http = builder.build();
        this.authorization = settings.userInfo() == null ? null
                : "Basic " + Base64.getEncoder().encodeToString(settings.userInfo().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A registry call that failed: {@link #notFound()} when the registry answered that the id or subject does not
     * exist, {@link #invalid()} when it answered with something that is not a usable Avro schema (neither is an outage),
     * {@link #unavailable()} when it did not answer in time, could not be reached or answered 5xx or 429 (an outage,
     * which a later call may not meet).
     */
    public static final class RegistryException extends Exception {
        private final boolean notFound;
        private final boolean invalid;
        private final boolean unavailable;

        RegistryException(String message, boolean notFound, Throwable cause) {
            this(message, notFound, false, cause);
        }

        RegistryException(String message, boolean notFound, boolean invalid, Throwable cause) {
            this(message, notFound, invalid, false, cause);
        }

        private RegistryException(String message, boolean notFound, boolean invalid, boolean unavailable, Throwable cause) {
            super(message, cause);
            this.notFound = notFound;
            this.invalid = invalid;
            this.unavailable = unavailable;
        }

        static RegistryException unavailable(String message, Throwable cause) {
            return new RegistryException(message, false, false, true, cause);
        }

        public boolean unavailable() {
            return unavailable;
        }

        public boolean notFound() {
            return notFound;
        }

        public boolean invalid() {
            return invalid;
        }
    }

    /** Most schema references followed for one schema (nested types a producer registered apart, as Apicurio's serde does). */
    static final int MAX_REFERENCES = 64;

    /**
     * The writer schema registered as {@code id}. Schema references (named types registered under subjects of their
     * own) are fetched with {@code GET /subjects/{subject}/versions/{version}} and parsed first, at most
     * {@link #MAX_REFERENCES} of them.
     */
    public Schema schemaById(int id) throws RegistryException {
        JsonNode answer = call(request("schemas/ids/" + id).GET().build(), "schema id " + id);
        Schema.Parser parser = new Schema.Parser();
        parseReferences(answer, parser, new java.util.HashSet<>(), "schema id " + id);
        return parse(answer, parser, "schema id " + id);
    }

    private void parseReferences(JsonNode answer, Schema.Parser parser, java.util.Set<String> seen, String what)
            throws RegistryException {
        JsonNode references = answer.get("references");
        if (references == null || !references.isArray()) {
            return;
        }
        for (JsonNode reference : references) {
            String subject = reference.path("subject").asText();
            String version = reference.path("version").asText();
            if (!seen.add(subject + "/" + version)) {
                continue;
            }
            if (seen.size() > MAX_REFERENCES) {
                throw new RegistryException(what + " has more than " + MAX_REFERENCES + " schema references", false, true, null);
            }
            String path = "subjects/" + java.net.URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions/"
                    + java.net.URLEncoder.encode(version, StandardCharsets.UTF_8);
            String referenceWhat = "reference " + subject + " version " + version + " of " + what;
            JsonNode referenced = call(request(path).GET().build(), referenceWhat);
            parseReferences(referenced, parser, seen, what);
            try {
                parser.parse(referenced.path("schema").asText());
            } catch (org.apache.avro.SchemaParseException e) {
                // Already known (a type defined by an earlier reference as well): keep the first definition.
                if (!String.valueOf(e.getMessage()).startsWith("Can't redefine")) {
                    throw new RegistryException(referenceWhat + " is not a valid Avro schema: " + e.getMessage(), false, true, e);
                }
            }
        }
    }

    private static Schema parse(JsonNode answer, Schema.Parser parser, String what) throws RegistryException {
        JsonNode type = answer.get("schemaType");
        if (type != null && !type.isNull() && !"AVRO".equalsIgnoreCase(type.asText())) {
            throw new RegistryException(what + " is a " + type.asText() + " schema, not Avro", false, true, null);
        }
        JsonNode schema = answer.get("schema");
        if (schema == null || !schema.isTextual()) {
            throw new RegistryException("the registry's answer for " + what + " has no schema", false, true, null);
        }
        try {
            return parser.parse(schema.asText());
        } catch (RuntimeException e) {
            throw new RegistryException(what + " is not a valid Avro schema: " + e.getMessage(), false, true, e);
        }
    }

    /**
     * {@link #register} for a start-up: an {@linkplain RegistryException#unavailable() unavailable} registry (a timeout,
     * a refused connection, a 5xx, e.g. a cold or restarting registry) is asked again, up to {@code attempts} calls in
     * all, {@code pause} apart; any other failure, and the last, is thrown. Blocks the caller for at most
     * {@code attempts} × (2 × the timeout + {@code pause}).
     */
    public int register(String subject, Schema schema, int attempts, Duration pause, Consumer<RegistryException> onRetry)
            throws RegistryException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return register(subject, schema);
            } catch (RegistryException e) {
                if (!e.unavailable() || attempt >= attempts) {
                    throw e;
                }
                onRetry.accept(e);
                Thread.sleep(pause.toMillis());
            }
        }
    }

    /** Registers {@code schema} under {@code subject} (or finds it already there) and returns its id. */
    public int register(String subject, Schema schema) throws RegistryException {
        ObjectNode body = JSON.createObjectNode().put("schema", schema.toString());
        String path = "subjects/" + java.net.URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions";
        HttpRequest request = request(path).header("Content-Type", CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8)).build();
        JsonNode answer = call(request, "registering " + schema.getFullName() + " under " + subject);
        JsonNode id = answer.get("id");
        if (id == null || !id.canConvertToInt()) {
            throw new RegistryException("the registry's answer to registering under " + subject + " has no id", false, null);
        }
        return id.intValue();
    }

    private HttpRequest.Builder request(String path) {
        String base = settings.url().toString();
        URI uri = URI.create(base.endsWith("/") ? base + path : base + "/" + path);
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(settings.timeout()).header("Accept", CONTENT_TYPE + ", application/json");
        if (authorization != null) {
            builder.header("Authorization", authorization);
        }
        return builder;
    }

    private JsonNode call(HttpRequest request, String what) throws RegistryException {
        // The request timeout bounds the wait for the answer's headers only; the whole exchange, body included,
        // is bounded here, so a registry that stalls mid-answer costs at most twice the timeout.
        CompletableFuture<HttpResponse<byte[]>> pending = http.sendAsync(request, info -> new BoundedBody(MAX_RESPONSE_BYTES));
        HttpResponse<byte[]> response;
        try {
            response = pending.get(2 * settings.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AnswerTooLargeException) {
                throw new RegistryException("the registry's answer for " + what + " is larger than " + MAX_RESPONSE_BYTES
                        + " bytes", false, true, e.getCause());
            }
            if (e.getCause() instanceof java.net.http.HttpTimeoutException) {
                throw RegistryException.unavailable("schema registry " + settings.url() + " did not answer within "
                        + settings.timeout() + " for " + what + " (" + e.getCause().getMessage() + ")", e.getCause());
            }
            throw RegistryException.unavailable("schema registry " + settings.url() + " unreachable for " + what + ": "
                    + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            pending.cancel(true);
            throw RegistryException.unavailable("schema registry " + settings.url() + " did not answer within "
                    + settings.timeout() + " for " + what, e);
        } catch (InterruptedException e) {
            pending.cancel(true);
            Thread.currentThread().interrupt();
            throw new RegistryException("interrupted while calling the schema registry for " + what, false, e);
        }
        byte[] body = response.body();
        int status = response.statusCode();
        if (status == 404) {
            throw new RegistryException("the schema registry does not know " + what + " (HTTP 404)", true, null);
        }
        if (status / 100 != 2) {
            String message = "the schema registry answered HTTP " + status + " for " + what + ": "
                    + io.ax.validation.Quote.truncate(new String(body, StandardCharsets.UTF_8), 200);
            throw status / 100 == 5 || status == 429 ? RegistryException.unavailable(message, null)
                    : new RegistryException(message, false, null);
        }
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new RegistryException("the registry's answer for " + what + " is not JSON", false, e);
        }
    }

    private static final class AnswerTooLargeException extends IOException {
        AnswerTooLargeException() {
            super("answer too large");
        }
    }

    /** Collects an answer body, failing (and cancelling the exchange) once it passes {@code max} bytes. */
    private static final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
        private final int max;
        private final CompletableFuture<byte[]> body = new CompletableFuture<>();
        private final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        private java.util.concurrent.Flow.Subscription subscription;

        BoundedBody(int max) {
            this.max = max;
        }

        @Override
        public CompletableFuture<byte[]> getBody() {
            return body;
        }

        @Override
        public void onSubscribe(java.util.concurrent.Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<java.nio.ByteBuffer> buffers) {
            for (java.nio.ByteBuffer buffer : buffers) {
                if (out.size() + buffer.remaining() > max) {
                    subscription.cancel();
                    body.completeExceptionally(new AnswerTooLargeException());
                    return;
                }
                byte[] chunk = new byte[buffer.remaining()];
                buffer.get(chunk);
                out.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable error) {
            body.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            body.complete(out.toByteArray());
        }
    }

    private static SSLContext sslContext(RegistrySettings settings) {
        try (InputStream in = Files.newInputStream(Path.of(settings.truststorePath()))) {
            KeyStore store = KeyStore.getInstance(settings.truststoreType());
            char[] password = settings.truststorePassword() == null ? null : settings.truststorePassword().toCharArray();
            store.load(in, password);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot load the schema registry trust store " + settings.truststorePath() + ": " + e, e);
        }
    }
}
