package io.ax.app.internal.query;

/**
 * The bounds of the HTTP API, like the topics' (topology-docs/LIMITS.md): how large a body is read, how long a
 * connection may stay silent, how many connections and handler threads there are, and how many of those threads the
 * data endpoints may hold at once, so the health endpoints always have some.
 *
 * @param maxBodyBytes     largest request body; a larger declared {@code Content-Length} is answered 413 before anything
 *                         is read, a larger chunked body once it passes the bound
 * @param idleTimeoutMs    a connection that sends nothing for this long (no body, a stalled body, an idle keep-alive) is
 *                         closed, and a handler waiting for its body is freed; a body must also come whole within it,
 *                         however it trickles
 * @param maxConnections   open connections at most; beyond, new ones wait in the accept backlog
 * @param maxThreads       handler threads at most
 * @param maxDataRequests  requests other than the health and metrics endpoints handled at once; the next is answered
 *                         503 at once (with Retry-After), so the health endpoints keep the remaining threads
 */
public record HttpLimits(int maxBodyBytes, long idleTimeoutMs, int maxConnections, int maxThreads, int maxDataRequests) {
    /** The defaults of the configuration ({@code ax.http.*}), for tests and tools. */
    public static final HttpLimits DEFAULTS = new HttpLimits(393_216, 5_000, 256, 32, 16);

    public HttpLimits {
        if (maxBodyBytes < 1 || idleTimeoutMs < 1 || maxConnections < 1 || maxThreads < 8 || maxDataRequests < 1
                || maxDataRequests > maxThreads - 4) {
            throw new IllegalArgumentException("HTTP limits out of range (maxThreads >= 8, 1 <= maxDataRequests <= maxThreads - 4): "
                    + maxBodyBytes + ", " + idleTimeoutMs + ", " + maxConnections + ", " + maxThreads + ", " + maxDataRequests);
        }
    }
}
