package io.ax.app.internal.query;

import io.ax.app.internal.metrics.SchedulerMetrics;
import io.javalin.config.RoutesConfig;

/** {@code GET /metrics}: the instance's metrics in Prometheus' text format ({@code topology-docs/METRICS.md}). */
final class MetricsEndpoints implements EndpointGroup {
    private final SchedulerMetrics metrics;

    MetricsEndpoints(SchedulerMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void register(RoutesConfig routes) {
        routes.get("/metrics", ctx -> ctx.contentType(SchedulerMetrics.contentType()).result(metrics.scrape()));
    }
}
