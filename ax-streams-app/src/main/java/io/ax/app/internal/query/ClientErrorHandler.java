package io.ax.app.internal.query;

import java.io.IOException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's answers to requests it cannot parse, kept 4xx: an HTTP version it does not speak ({@code GET / HTTP/7.3}) is
 * answered 505 by Jetty, a status that says the server failed, though only the client's bytes were wrong; it becomes 400,
 * like every other request Jetty cannot read (DESIGN guarantee 10: never a 5xx from client input). Anything else is
 * Jetty's own answer, unchanged.
 */
final class ClientErrorHandler extends ErrorHandler {
    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) throws IOException {
        if (code == 505) {
            response.setStatus(400);
            code = 400;
        }
        super.generateResponse(request, response, code, message, cause, callback);
    }
}
