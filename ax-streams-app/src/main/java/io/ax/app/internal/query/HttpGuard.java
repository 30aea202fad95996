package io.ax.app.internal.query;

import io.ax.validation.Quote;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every HTTP request passes before its endpoint ({@link HttpLimits}): a body declared larger than allowed is
 * answered 413 at once, from its {@code Content-Length}, nothing read; a request to a data endpoint takes one of
 * {@link HttpLimits#maxDataRequests()} permits or is answered 503 at once, so however many requests hang on their body
 * (until the idle timeout cuts them: the whole body must come within it, however it trickles), the health endpoints ({@link #UNLIMITED}) find a thread. A body is
 * read once, bounded ({@link #body}); a request whose body does not come is abandoned: answered 408 (if the client is
 * still there), counted, and logged at WARN, one line for every abandoned request at most every
 * {@value #ABANDONED_LOG_EVERY_MS} ms (with how many since the last line). Thread-safe.
 */
final class HttpGuard {
    private static final Logger log = LoggerFactory.getLogger(HttpGuard.class);
    /** Paths served whatever the data endpoints are doing: the health checks and the metrics scrape. */
    static final Set<String> UNLIMITED = Set.of("/health", "/internal/health", "/metrics");
    static final long ABANDONED_LOG_EVERY_MS = 10_000;
    private static final String PERMIT = "ax.http.permit";
    private static final String BODY = "ax.http.body";

    private final HttpLimits limits;
    private final Semaphore dataRequests;
    private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "ax-http-body-deadline");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicLong abandoned = new AtomicLong();
    private final AtomicLong busy = new AtomicLong();
    private long abandonedLoggedAtMs = Long.MIN_VALUE;
    private long abandonedLogged;

    HttpGuard(HttpLimits limits) {
        this.limits = limits;
        this.dataRequests = new Semaphore(limits.maxDataRequests());
    }

    /** Before anything else: the declared size, then a permit for a data endpoint. */
    void admit(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > limits.maxBodyBytes()) {
            ctx.header("Connection", "close");
            throw HttpError.of(413, "the body declares " + declared + " bytes; at most " + limits.maxBodyBytes() + " are taken");
        }
        if (UNLIMITED.contains(ctx.path())) {
            return;
        }
        if (!dataRequests.tryAcquire()) {
            busy.incrementAndGet();
            throw HttpError.unavailable("this instance is handling " + limits.maxDataRequests() + " requests already"
                    + " (ax.http.max.data.requests); ask again shortly");
        }
        ctx.attribute(PERMIT, Boolean.TRUE);
    }

    /** After the request, whatever happened to it: gives its permit back. */
    void release(Context ctx) {
        if (ctx.attribute(BODY) == null && (ctx.req().getContentLengthLong() > 0
                || "chunked".equalsIgnoreCase(ctx.req().getHeader("Transfer-Encoding")))) {
            // Answered without reading the body (a 503, a 400 on the path): Jetty closes such a connection after the answer,
            // so say so, or a client reuses it and finds it closed ("received no bytes"; QueryServerTest's hostile walk).
            ctx.header("Connection", "close");
        }
        if (ctx.attribute(PERMIT) != null) {
            ctx.attribute(PERMIT, null);
            dataRequests.release();
        }
    }

    /**
     * The request's body, read once, at most {@link HttpLimits#maxBodyBytes()} bytes (a longer one, sent chunked, is
     * answered 413); a body that does not come within the idle timeout is answered 408.
     */
    byte[] body(Context ctx) {
        byte[] read = ctx.attribute(BODY);
        if (read != null) {
            return read;
        }
        // The whole body within the idle timeout: a body trickled a byte at a time never lets the connection idle, so
        // the idle timeout alone would let it hold this thread as long as it liked; at the deadline the connection is
        // closed under the read, which then fails like a body that never came. (Jetty's minimum request data rate is
        // no help: it also fails a small body that arrived whole but is read a few ms later on a busy box.)
        ScheduledFuture<?> deadline = deadlines.schedule(() -> cut(ctx), limits.idleTimeoutMs(), TimeUnit.MILLISECONDS);
        try {
            InputStream in = ctx.req().getInputStream();
            read = in.readNBytes(limits.maxBodyBytes() + 1);
        } catch (IOException | UncheckedIOException | IllegalStateException e) {
            abandoned(ctx, e);
            ctx.header("Connection", "close");
            throw HttpError.of(408, "the request body did not come within " + limits.idleTimeoutMs() + " ms (ax.http.idle.timeout.ms)");
        } catch (RuntimeException e) { // Jetty's BadMessageException and the like: the transport, not the handler
            abandoned(ctx, e);
            ctx.header("Connection", "close");
            throw HttpError.badRequest("the request body could not be read: " + Quote.truncate(String.valueOf(e.getMessage()), 200));
        } finally {
            deadline.cancel(false);
        }
        if (read.length > limits.maxBodyBytes()) {
            ctx.header("Connection", "close");
            throw HttpError.of(413, "the body is longer than the " + limits.maxBodyBytes() + " bytes taken");
        }
        ctx.attribute(BODY, read);
        return read;
    }

    /** Closes the request's connection: a read blocked on its body fails at once. */
    private static void cut(Context ctx) {
        try {
            ServletContextRequest request = ServletContextRequest.getServletContextRequest(ctx.req());
            if (request != null) {
                request.getConnectionMetaData().getConnection().getEndPoint().close();
            }
        } catch (RuntimeException e) {
            log.debug("Could not cut a request whose body is late", e);
        }
    }

    /** Stops the deadline timer (the server is closing). */
    void close() {
        deadlines.shutdownNow();
    }

    private void abandoned(Context ctx, Exception e) {
        long count = abandoned.incrementAndGet();
        long nowMs = System.currentTimeMillis();
        synchronized (this) {
            if (abandonedLoggedAtMs != Long.MIN_VALUE && nowMs - abandonedLoggedAtMs < ABANDONED_LOG_EVERY_MS) {
                return;
            }
            long since = count - abandonedLogged;
            abandonedLoggedAtMs = nowMs;
            abandonedLogged = count;
            log.warn("HTTP request abandoned: {} {} from {}: its body did not come ({}); {} abandoned since the last such line,"
                    + " {} in all (one line at most every {} s)", ctx.method(), Quote.of(ctx.path()), ctx.ip(),
                    Quote.truncate(String.valueOf(e), 200), since, count, ABANDONED_LOG_EVERY_MS / 1000);
        }
    }

    /** Requests whose body did not come, since start. */
    long abandoned() {
        return abandoned.get();
    }

    /** Data requests answered 503 because every permit was taken, since start. */
    long busy() {
        return busy.get();
    }
}
