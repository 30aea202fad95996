package io.ax.app.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;

/**
 * Every HTTP endpoint of a scheduler instance walked with hostile values: query parameters and path ids out of every
 * range (huge, negative, overflowing, instants beyond the millisecond range, bad escapes), POST bodies the topics refuse
 * (a field named twice, content after the object, deep nesting, wrong types), DELETE and other methods no route takes,
 * and requests written on a raw socket that a well-behaved client never sends (a {@code Content-Length} far over the
 * bound or larger than what comes, a body trickled byte by byte, chunk sizes that overflow, headers doubled). The
 * oracle: each is answered, within {@link #ANSWER_BOUND}, never with a 5xx but those the caller accepts (the 503 of an
 * instance not running yet, or of saturated data endpoints), never with a 202 for a hostile body, never with an answer
 * over 8 kB. Shared by {@code QueryServerTest} (an instance not running yet) and {@code HttpWalkIT} (a running
 * scheduler with tasks in its stores).
 */
public final class HostileHttpWalk {
    /** What any answer may take: the default idle timeout (5 s) cuts a body that does not come, plus slack for a busy box. */
    public static final Duration ANSWER_BOUND = Duration.ofSeconds(15);
    private static final String HUGE = "x".repeat(6_000);
    private static final String DEEP = "[".repeat(200) + "]".repeat(200);
    /** Values for a query parameter or a path id (already URL-encoded where they need it). */
    static final List<String> VALUES = List.of(HUGE, "-1", "0", "-9223372036854775808", "-9223372036854775809",
            "9223372036854775807", "99999999999999999999", "%7B%22a%22%3A1%7D", "%00%01", "+1000000000-12-31T23:59:59Z",
            "-1000000000-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "10000-01-01T00:00:00Z", "1e308", "NaN", "%FF%FE",
            "true", "", "%2F..%2F..%2Fetc%2Fpasswd", "a%2Fb", "%20", "1970-01-01T00:00:00Z", "0x7fffffff");
    /** Listings and reads: {@code %s} takes each value. */
    static final List<String> GET_PATHS = List.of("/tasks?state=%s", "/tasks?jobType=%s", "/tasks?owner=%s",
            "/tasks?dueBefore=%s", "/tasks?dueAfter=%s", "/tasks?limit=%s", "/tasks?cursor=%s", "/tasks?state=PENDING&limit=%s",
            "/tasks?dueBefore=%s&limit=1", "/dead-letters?dueBefore=%s", "/dead-letters?limit=%s", "/dead-letters?cursor=%s",
            "/internal/tasks?dueBefore=%s", "/internal/tasks?cursor=%s", "/internal/tasks?limit=%s", "/tasks/%s",
            "/executions/%s", "/internal/executions/%s", "/calendars/%s", "/calendars?x=%s", "/console/%s", "/limits?x=%s",
            "/stats?x=%s", "/internal/stats?x=%s", "/health?x=%s", "/internal/health?x=%s", "/metrics?x=%s", "/?x=%s");
    /** Bodies the topics refuse, for every POST endpoint. */
    static final List<String> BODIES = List.of("{\"delayMs\":3600000,\"delayMs\":1}",
            "{\"taskId\":\"a\",\"taskId\":\"b\",\"jobType\":\"j\",\"delayMs\":1}",
            "{\"taskId\":\"a\",\"jobType\":\"j\",\"delayMs\":1} trailing", "{\"taskId\":\"a\"}{}", DEEP,
            "{\"taskId\":\"a\",\"jobType\":\"j\",\"delayMs\":" + "9".repeat(1000) + "}", "{\"taskId\":7,\"jobType\":\"j\"}",
            "{\"taskId\":\"a\",\"jobType\":\"j\",\"at\":\"+1000000000-12-31T23:59:59Z\"}",
            "{\"taskId\":\"a\",\"jobType\":\"j\",\"at\":-9223372036854775808}",
            "{\"taskId\":\"a\",\"jobType\":\"j\",\"delayMs\":9223372036854775807}",
            "{\"taskId\":\"a\",\"jobType\":\"j\",\"everyMs\":-1}", "{\"taskId\":\"a\",\"jobType\":\"j\",\"delayMs\":-5}",
            "{\"taskId\":\"a\",\"jobType\":\"j\",\"delayMs\":1e400}", "{\"taskId\":\"a\",\"jobType\":\"j\",\"delayMs\":1,\"priority\":99999999999}",
            "{\"reason\":\"a\",\"reason\":\"b\"}", "{\"reason\":{\"x\":[1,2]}}", "{\"reason\":\"" + HUGE + "\"}", "null", "[]",
            "\"s\"", "\u0000", "{\"taskId\":\"" + HUGE + "\",\"jobType\":\"j\",\"delayMs\":1}", "{\"payload\":" + DEEP + "}",
            "{\"reason\":\"a\"", "{\"reason\":\"a\",\"reason\":{\"b\":[");
    /** The POST endpoints; {@code {id}} takes each task id of the walk. */
    static final List<String> POST_PATHS = List.of("/tasks", "/tasks/{id}/cancel", "/tasks/{id}/replay", "/tasks/{id}/trigger",
            "/tasks/{id}/pause", "/tasks/{id}/resume");

    private final int port;
    private final String token;
    private final List<String> taskIds = new ArrayList<>(List.of("t1"));
    private final List<String> executionIds = new ArrayList<>(List.of("00000000-0000-0000-0000-000000000000"));
    private BiPredicate<Integer, String> acceptable5xx = (status, body) -> false;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<String> broken = new ArrayList<>();
    private int asked;
    private long slowestMs;
    private String slowest = "";

    private HostileHttpWalk(int port, String token) {
        this.port = port;
        this.token = token;
    }

    /** A walk of the instance listening on {@code port} on loopback, sending {@code Authorization: Bearer <token>}. */
    public static HostileHttpWalk of(int port, String token) {
        return new HostileHttpWalk(port, token);
    }

    /** Real task ids (found in the stores) walked besides a made-up one: their reads and actions. */
    public HostileHttpWalk withTaskIds(List<String> ids) {
        taskIds.addAll(ids);
        return this;
    }

    /** Real execution ids (of dispatched tasks) walked besides a made-up one. */
    public HostileHttpWalk withExecutionIds(List<String> ids) {
        executionIds.addAll(ids);
        return this;
    }

    /** A 5xx the caller expects (e.g. the 503 of an instance not running yet); any other 5xx is a finding. */
    public HostileHttpWalk accepting5xx(BiPredicate<Integer, String> acceptable) {
        this.acceptable5xx = acceptable;
        return this;
    }

    /** Every request of the walk, one after the other; the findings are in {@link #broken()}. */
    public HostileHttpWalk walk() throws InterruptedException {
        for (String path : GET_PATHS) {
            for (String value : VALUES) {
                call("GET", path.replace("%s", value), null);
            }
        }
        for (String id : taskIds) {
            for (String suffix : List.of("", "?x=" + HUGE)) {
                call("GET", "/tasks/" + id + suffix, null);
            }
            for (String method : List.of("DELETE", "PUT", "PATCH")) {
                call(method, "/tasks/" + id, "{}");
            }
        }
        for (String id : executionIds) {
            for (String suffix : List.of("", "?x=" + HUGE, "%00", "/..%2F..")) {
                call("GET", "/executions/" + id + suffix, null);
                call("GET", "/internal/executions/" + id + suffix, null);
            }
            call("DELETE", "/executions/" + id, null);
        }
        for (String method : List.of("DELETE", "PUT", "PATCH", "OPTIONS")) {
            for (String path : List.of("/tasks", "/dead-letters", "/calendars", "/limits", "/executions/e1", "/health", "/metrics")) {
                call(method, path, method.equals("OPTIONS") ? null : "{}");
            }
        }
        for (String template : POST_PATHS) {
            for (String id : template.contains("{id}") ? taskIds : List.of("")) {
                String path = template.replace("{id}", id);
                for (String body : BODIES) {
                    HttpResponse<String> response = call("POST", path, body);
                    if (response != null && response.statusCode() == 202) {
                        broken.add("accepted: POST " + path + " " + shorten(body, 60));
                    }
                }
            }
            // Jetty answers a NUL in the path 400 and closes the connection; Java's client retries only idempotent
            // requests on a connection found closed, so this one goes on a connection of its own, never reused.
            raw("POST control char", "POST " + template.replace("{id}", "%00") + " HTTP/1.1\r\nHost: x\r\n"
                    + auth() + "Content-Length: 0\r\n\r\n", null);
        }
        rawRequests();
        return this;
    }

    /** Requests only a hostile client writes, each on a connection of its own. */
    private void rawRequests() throws InterruptedException {
        String head = "POST /tasks/t1/cancel HTTP/1.1\r\nHost: x\r\n" + auth() + "Content-Type: application/json\r\n";
        raw("a Content-Length far over the bound, no body", head + "Content-Length: 99999999999\r\n\r\n", null);
        raw("a Content-Length that overflows a long", head + "Content-Length: 99999999999999999999999\r\n\r\n", null);
        raw("a negative Content-Length", head + "Content-Length: -1\r\n\r\n", null);
        raw("two Content-Lengths", head + "Content-Length: 2\r\nContent-Length: 20\r\n\r\n{}", null);
        raw("a Content-Length larger than what comes", head + "Content-Length: 100\r\n\r\n{\"reason\":", null);
        // 120 bytes, one every 200 ms: 24 s in all, longer than the bound, each byte well within the idle timeout.
        String slow = "{\"reason\":\"" + "r".repeat(106) + "\"}";
        raw("a body trickled a byte at a time", head + "Content-Length: " + slow.length() + "\r\n\r\n", slow);
        raw("a chunk size that overflows", head + "Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\n{}\r\n0\r\n\r\n", null);
        raw("a chunked body over the bound", head + "Transfer-Encoding: chunked\r\n\r\n7FFFFFFF\r\n{}", null);
        raw("a chunked body that stops", head + "Transfer-Encoding: chunked\r\n\r\n10\r\n{\"re", null);
        raw("chunked and a Content-Length", head + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n2\r\n{}\r\n0\r\n\r\n", null);
        raw("a header of 64 kB", "GET /tasks HTTP/1.1\r\nHost: x\r\n" + auth() + "X-Big: " + "h".repeat(65_536) + "\r\n\r\n", null);
        raw("a query of 64 kB", "GET /tasks?owner=" + "o".repeat(65_536) + " HTTP/1.1\r\nHost: x\r\n" + auth() + "\r\n", null);
        raw("a thousand headers", "GET /tasks HTTP/1.1\r\nHost: x\r\n" + auth() + "X-H: v\r\n".repeat(1_000) + "\r\n", null);
        raw("an unknown HTTP version", "GET /tasks HTTP/7.3\r\nHost: x\r\n" + auth() + "\r\n", null);
        raw("an absolute URI to elsewhere", "GET http://elsewhere.example/tasks HTTP/1.1\r\nHost: x\r\n" + auth() + "\r\n", null);
        raw("a method no one knows", "BREW /tasks HTTP/1.1\r\nHost: x\r\n" + auth() + "\r\n", null);
        raw("a request line of garbage", "\u0001\u0002 \u00ff\r\n\r\n", null);
        raw("a wrong token", "GET /tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + HUGE + "\r\n\r\n", null);
    }

    private String auth() {
        return token == null ? "" : "Authorization: Bearer " + token + "\r\n";
    }

    private HttpResponse<String> call(String method, String path, String body) throws InterruptedException {
        asked++;
        String what = method + " " + shorten(path, 120) + (body == null ? "" : " " + shorten(body, 60));
        HttpRequest.Builder request;
        try {
            request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(ANSWER_BOUND);
        } catch (IllegalArgumentException unsendable) {
            return null; // Java's client refuses to send it; the raw requests cover what it will not write
        }
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        long startNs = System.nanoTime();
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            broken.add("no answer within " + ANSWER_BOUND.toSeconds() + " s: " + what + ": " + e);
            return null;
        }
        took(startNs, what);
        check(response.statusCode(), response.body(), what);
        return response;
    }

    /**
     * Writes {@code request} on a fresh connection, then {@code trickle} one byte every 200 ms (while no answer came),
     * and reads the status line: it must come within {@link #ANSWER_BOUND} and not be a 5xx (a closed connection with
     * no answer is fine: the server owes nothing to a request it cannot parse).
     */
    private void raw(String what, String request, String trickle) throws InterruptedException {
        asked++;
        long startNs = System.nanoTime();
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(trickle == null ? (int) ANSWER_BOUND.toMillis() : 200);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            String status = null;
            if (trickle != null) {
                for (int i = 0; i < trickle.length() && status == null; i++) {
                    try {
                        out.write(trickle.charAt(i));
                        out.flush();
                    } catch (IOException closedByServer) {
                        break;
                    }
                    status = statusLineOrNull(in);
                    if (System.nanoTime() - startNs > ANSWER_BOUND.toNanos()) {
                        break;
                    }
                }
                socket.setSoTimeout((int) Math.max(1, ANSWER_BOUND.toMillis() - (System.nanoTime() - startNs) / 1_000_000));
            }
            if (status == null) {
                status = statusLine(in);
            }
            took(startNs, "raw: " + what);
            if (status.startsWith("HTTP/1.1 ") && status.length() >= 12) {
                int code = Integer.parseInt(status.substring(9, 12));
                check(code, rest(in), "raw: " + what);
            } else if (!status.isEmpty()) {
                broken.add("raw: " + what + ": not an HTTP answer: " + shorten(status, 80));
            }
        } catch (SocketTimeoutException e) {
            broken.add("no answer within " + ANSWER_BOUND.toSeconds() + " s: raw: " + what);
        } catch (IOException e) {
            took(startNs, "raw: " + what); // reset by the server: answered by closing
        }
    }

    /** The status line, or null when nothing came within the socket's timeout. */
    private static String statusLineOrNull(InputStream in) throws IOException {
        try {
            return statusLine(in);
        } catch (SocketTimeoutException nothingYet) {
            return null;
        }
    }

    /** The headers and body after the status line, as far as they come at once, at most 16 kB. */
    private static String rest(InputStream in) throws IOException {
        StringBuilder text = new StringBuilder();
        int contentLength = -1;
        String line;
        while (!(line = statusLine(in)).isEmpty()) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                contentLength = Integer.parseInt(line.substring(15).trim());
            }
        }
        for (int i = 0; i < Math.min(contentLength, 16_384); i++) {
            int c = in.read();
            if (c == -1) {
                break;
            }
            text.append((char) c);
        }
        return text.toString();
    }

    /** The first line of the answer; empty when the server closed the connection without one. */
    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n' && line.length() < 200) {
            line.append((char) c);
        }
        return line.toString().trim();
    }

    private void took(long startNs, String what) {
        long tookMs = (System.nanoTime() - startNs) / 1_000_000;
        if (tookMs > slowestMs) {
            slowestMs = tookMs;
            slowest = what;
        }
        if (tookMs > ANSWER_BOUND.toMillis()) {
            broken.add("answered after " + tookMs + " ms: " + what);
        }
    }

    private void check(int status, String body, String what) {
        if (status >= 500 && !acceptable5xx.test(status, body)) {
            broken.add(status + " " + what + ": " + shorten(body, 200));
        }
        if (body.length() > 8_192) {
            broken.add("answer of " + body.length() + " chars: " + what);
        }
    }

    private static String shorten(String text, int max) {
        return text.length() > max ? text.substring(0, max) + "…" : text;
    }

    /** What the walk found: a 5xx, no answer within the bound, a 202 for a hostile body, an answer over 8 kB. */
    public List<String> broken() {
        return broken;
    }

    /** How many requests the walk sent. */
    public int asked() {
        return asked;
    }

    /** The slowest answer, for the figures. */
    public String slowest() {
        return slowestMs + " ms (" + slowest + ")";
    }
}
