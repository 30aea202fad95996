package io.ax.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A client of a scheduler instance's HTTP query API: {@code GET /tasks/{taskId}} and {@code GET /tasks?...}, JSON in
 * and out, errors as {@code {"error":"..."}} with 400, 401, 404 or 503. Every failure becomes a
 * {@link CommandFailedException} naming the address and the reason; a 400 (the API refused the arguments) exits 2.
 */
final class QueryApi {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** An answer: the status and the body, parsed. */
    record Answer(int status, JsonNode body, String raw) {
    }

    private final URI base;
    private final String token;
    private final Duration timeout;
    private final HttpClient http;

    QueryApi(URI base, String token, Duration timeout) {
        this.base = base;
        this.token = token;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** {@code GET /tasks/{taskId}}. */
    Answer task(String taskId) {
        Answer answer = get("/tasks/" + pathSegment(taskId));
        if (answer.status() == 404) {
            throw new CommandFailedException("no task " + taskId + " (404 from " + base + ": " + error(answer) + ")");
        }
        return requireOk(answer);
    }

    /** {@code GET /calendars/{name}}. */
    Answer calendar(String name) {
        Answer answer = get("/calendars/" + pathSegment(name));
        if (answer.status() == 404) {
            throw new CommandFailedException("no calendar " + name + " (404 from " + base + ": " + error(answer) + ")");
        }
        return requireOk(answer);
    }

    /** {@code GET /workers}. */
    Answer workers() {
        return requireOk(get("/workers"));
    }

    /** {@code GET /tasks?...}, the parameters given (non-null) in order. */
    Answer tasks(Map<String, Object> parameters) {
        Map<String, Object> given = new LinkedHashMap<>(parameters);
        given.values().removeIf(v -> v == null);
        String query = given.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(String.valueOf(e.getValue()), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        return requireOk(get("/tasks" + (query.isEmpty() ? "" : "?" + query)));
    }

    private Answer get(String pathAndQuery) {
        URI uri = URI.create(base + pathAndQuery);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout).header("Accept", "application/json").GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (ConnectException e) {
            throw new CommandFailedException("cannot reach the query API at " + base + ": connection refused (is a scheduler"
                    + " running there with its HTTP server on? see --http)");
        } catch (HttpTimeoutException e) {
            throw new CommandFailedException("the query API at " + base + " did not answer within " + timeout.toMillis()
                    + " ms (--http-timeout)");
        } catch (IOException e) {
            throw new CommandFailedException("cannot reach the query API at " + base + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailedException("interrupted while waiting for " + uri);
        }
        return new Answer(response.statusCode(), parse(response.body()), response.body());
    }

    private Answer requireOk(Answer answer) {
        int status = answer.status();
        if (status == 200 && answer.body() != null && answer.body().isObject()) {
            return answer;
        }
        if (status == 200) {
            throw new CommandFailedException("the query API at " + base + " answered 200 without a JSON object: "
                    + shorten(answer.raw()));
        }
        String why = error(answer);
        throw switch (status) {
            case 400 -> new CommandFailedException("the query API refused the request (400): " + why, CliErrors.USAGE);
            case 401, 403 -> new CommandFailedException("not authorized by the query API at " + base + " (" + status + ": "
                    + why + "); give the token with --token or " + HttpOptions.TOKEN_ENV);
            case 503 -> new CommandFailedException("the scheduler at " + base + " cannot answer yet (503: " + why
                    + "); retry in a moment, or ask another instance");
            default -> new CommandFailedException("the query API at " + base + " answered " + status + ": " + why);
        };
    }

    private static String error(Answer answer) {
        JsonNode body = answer.body();
        if (body != null && body.hasNonNull("error")) {
            return body.get("error").asText();
        }
        return answer.raw() == null || answer.raw().isBlank() ? "no details" : shorten(answer.raw());
    }

    private static JsonNode parse(String body) {
        try {
            return body == null || body.isBlank() ? null : MAPPER.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    private static String shorten(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }

    /** A taskId as one path segment: percent-encoded, a space as %20 (URLEncoder's '+' is for queries only). */
    static String pathSegment(String taskId) {
        return URLEncoder.encode(taskId, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
