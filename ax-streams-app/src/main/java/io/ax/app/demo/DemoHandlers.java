package io.ax.app.demo;

import io.ax.worker.AxWorker;
import io.ax.worker.JobHandler;
import io.ax.worker.Result;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The demo's job types and what their handlers do, shared by {@code ./ax demo} and {@code ./ax worker}: {@code email}
 * and {@code sync} succeed, {@code payment} fails twice (retryable) then succeeds, {@code report} fails for good.
 * {@link #parse} makes more from {@code TYPE=BEHAVIOUR}.
 */
public final class DemoHandlers {
    private DemoHandlers() {
    }

    /** The demo's four job types. */
    public static Map<String, JobHandler> defaults() {
        Map<String, JobHandler> handlers = new LinkedHashMap<>();
        handlers.put("email", context -> Result.success());
        handlers.put("sync", context -> Result.success());
        handlers.put("payment", context -> context.attempt() < 3 ? Result.retryable("card processor busy") : Result.success());
        handlers.put("report", context -> Result.fatal("report database unreachable"));
        return handlers;
    }

    /**
     * A handler from {@code BEHAVIOUR}: {@code succeed}, {@code fail} (a retryable failure), {@code fatal}, or
     * {@code sleep:MILLIS} (succeeds after that long).
     *
     * @throws IllegalArgumentException naming what is accepted
     */
    public static JobHandler parse(String behaviour) {
        switch (behaviour) {
            case "succeed":
                return context -> Result.success();
            case "fail":
                return context -> Result.retryable("failing on purpose (./ax worker --handler ...=fail)");
            case "fatal":
                return context -> Result.fatal("failing for good on purpose (./ax worker --handler ...=fatal)");
            default:
                if (behaviour.startsWith("sleep:")) {
                    long ms;
                    try {
                        ms = Long.parseLong(behaviour.substring("sleep:".length()));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("sleep:MILLIS needs a number of milliseconds: " + behaviour);
                    }
                    if (ms < 0 || ms > Duration.ofHours(24).toMillis()) {
                        throw new IllegalArgumentException("sleep:MILLIS must be 0 to 86400000: " + behaviour);
                    }
                    return context -> {
                        Thread.sleep(ms);
                        return Result.success();
                    };
                }
                throw new IllegalArgumentException("unknown behaviour '" + behaviour + "': succeed, fail, fatal or sleep:MILLIS");
        }
    }

    /** Registers every handler on {@code builder}. */
    public static AxWorker.Builder register(AxWorker.Builder builder, Map<String, JobHandler> handlers) {
        handlers.forEach(builder::handler);
        return builder;
    }
}
