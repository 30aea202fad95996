package io.ax.app.internal.query;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The web console: {@code GET /} (its page) and {@code GET /console/{file}} (its script and style sheet), plain static
 * files from the jar's resources ({@code io/ax/app/console/}) that call the JSON endpoints from the browser. Nothing is
 * fetched from elsewhere, and the files hold no data, so they are served without a token ({@link #isConsolePath});
 * every read and action of the page goes through the API's own access check.
 *
 * <p>The Content-Security-Policy allows only this server's own script and style, no inline script or event handler,
 * and connections to this server alone: even a payload that slipped past the page's escaping could not run.
 */
final class ConsoleEndpoints implements EndpointGroup {
    private static final String RESOURCES = "/io/ax/app/console/";
    private static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    /** The files served, and their content types: a fixed list, so no path from a request reaches the class loader. */
    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "console.js", "text/javascript; charset=utf-8",
            "console.css", "text/css; charset=utf-8");

    private final Map<String, byte[]> contents;

    ConsoleEndpoints() {
        this.contents = Map.copyOf(FILES.keySet().stream().collect(Collectors.toMap(f -> f, ConsoleEndpoints::read)));
    }

    /** Whether a GET of {@code path} is the console's own files, served without a token. */
    static boolean isConsolePath(String path) {
        return path.equals("/") || path.startsWith("/console/");
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/", ctx -> serve(ctx, "index.html"));
        routes.get("/console/{file}", ctx -> serve(ctx, ctx.pathParam("file")));
    }

    private void serve(Context ctx, String file) {
        byte[] body = contents.get(file);
        if (body == null) {
            throw HttpError.notFound("no console file " + io.ax.validation.Quote.of(file));
        }
        ctx.header("Content-Security-Policy", POLICY);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("Cache-Control", "no-cache");
        ctx.status(200).contentType(FILES.get(file)).result(body);
    }

    private static byte[] read(String file) {
        try (InputStream in = ConsoleEndpoints.class.getResourceAsStream(RESOURCES + file)) {
            if (in == null) {
                throw new IllegalStateException("console resource missing from the jar: " + RESOURCES + file);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
