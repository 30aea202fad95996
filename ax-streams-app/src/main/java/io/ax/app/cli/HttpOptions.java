package io.ax.app.cli;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Where a scheduler instance's query API is and how to log in to it: for {@code ax status} and {@code ax list}. */
final class HttpOptions {
    static final String ADDRESS_ENV = "AX_HTTP";
    static final String TOKEN_ENV = "AX_HTTP_TOKEN";

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--http", paramLabel = "HOST:PORT", description = "A scheduler instance's HTTP query API, host:port"
            + " or a URL (http://..., https://...); default: " + ADDRESS_ENV + ". Any instance answers for every task.")
    String address;

    @Option(names = "--token", paramLabel = "TOKEN", description = "Bearer token of the query API (default: " + TOKEN_ENV
            + "; prefer the variable, which keeps the token out of the process list).")
    String token;

    @Option(names = "--http-timeout", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "10s",
            description = "How long to wait for the answer (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    QueryApi api(Map<String, String> environment) {
        String given = address != null ? address : environment.get(ADDRESS_ENV);
        if (given == null || given.isBlank()) {
            throw new ParameterException(spec.commandLine(), "No query API address: give --http HOST:PORT of a scheduler"
                    + " instance, or set " + ADDRESS_ENV);
        }
        String base = given.contains("://") ? given : "http://" + given;
        URI uri;
        try {
            uri = URI.create(base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--http': '" + given + "': " + e.getMessage());
        }
        if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--http': '" + given
                    + "' is not host:port or an http(s) URL");
        }
        String bearer = token != null ? token : environment.get(TOKEN_ENV);
        return new QueryApi(uri, bearer == null || bearer.isBlank() ? null : bearer, timeout);
    }
}
