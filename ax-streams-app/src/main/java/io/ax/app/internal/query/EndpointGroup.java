package io.ax.app.internal.query;

import io.javalin.config.RoutesConfig;

/** Routes of one capability of the HTTP API, registered on the {@link QueryServer} (behind its access check). */
interface EndpointGroup {
    void register(RoutesConfig routes);
}
