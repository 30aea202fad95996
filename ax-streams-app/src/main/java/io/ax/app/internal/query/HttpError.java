package io.ax.app.internal.query;

import io.ax.AxException;

/** An answer other than 2xx, with the status a user expects and a message for {@code {"error":"…"}}. */
final class HttpError extends AxException {
    /** Seconds a client should wait before asking again, for 503. */
    static final int RETRY_AFTER_SECONDS = 1;

    private final int status;

    private HttpError(int status, String message) {
        super(message);
        this.status = status;
    }

    static HttpError badRequest(String message) {
        return new HttpError(400, message);
    }

    static HttpError unauthorized(String message) {
        return new HttpError(401, message);
    }

    static HttpError notFound(String message) {
        return new HttpError(404, message);
    }

    /** The instance is rebalancing, restoring, or a peer cannot be reached: ask again shortly. */
    static HttpError unavailable(String message) {
        return new HttpError(503, message);
    }

    static HttpError of(int status, String message) {
        return new HttpError(status, message);
    }

    int status() {
        return status;
    }
}
