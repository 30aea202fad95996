package io.ax.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ax workers}: the worker registry, as a scheduler instance's query API reports it ({@code GET /workers}). */
@Command(name = "workers", mixinStandardHelpOptions = true,
        description = "List the workers that announced themselves on the workers topic: id, state (ALIVE, or DEAD once"
                + " silent for ax.workers.missed.heartbeats heartbeats), host, version, when last heard from, the lanes"
                + " (job type running/limit, waiting) and the executions in flight; and, state REPORTING, workers that never"
                + " announce but name themselves on their reports. Asks a scheduler instance's HTTP query API.")
public final class WorkersCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "Print the registry as the API answered it, one JSON object.")
    boolean json;

    @Mixin
    HttpOptions http;

    @Override
    public Integer call() {
        JsonNode body = http.api(System.getenv()).workers().body();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(body);
        } else {
            print(out, body);
        }
        out.flush();
        return CliErrors.OK;
    }

    static void print(PrintWriter out, JsonNode body) {
        out.printf("%-28s  %-9s  %-20s  %-10s  %-24s  %s%n", "WORKER", "STATE", "HOST", "VERSION", "LAST SEEN", "LANES");
        for (JsonNode worker : body.path("workers")) {
            List<String> lanes = new ArrayList<>();
            for (JsonNode lane : worker.path("lanes")) {
                lanes.add(lane.path("jobType").asText() + " " + lane.path("running").asInt() + "/" + lane.path("limit").asInt()
                        + (lane.path("waiting").asInt() > 0 ? " +" + lane.path("waiting").asInt() + " waiting" : ""));
            }
            out.printf("%-28s  %-9s  %-20s  %-10s  %-24s  %s%n", worker.path("workerId").asText(), worker.path("state").asText(),
                    worker.path("host").asText("-"), worker.path("version").asText("-"),
                    worker.path("lastSeenAt").asText(worker.path("lastReportAt").asText("-")),
                    lanes.isEmpty() ? "-" : String.join(", ", lanes));
            int count = worker.path("inFlightCount").asInt();
            if (count > 0) {
                List<String> executions = new ArrayList<>();
                worker.path("inFlight").forEach(e -> executions.add(e.path("executionId").asText()
                        + (e.hasNonNull("taskId") ? " (task " + e.get("taskId").asText() + ")" : "")));
                out.println("    in flight " + count + ": " + String.join(", ", executions)
                        + (executions.size() < count ? ", …" : ""));
            }
        }
        out.println(body.path("alive").asLong() + " alive, " + body.path("dead").asLong() + " dead"
                + (body.path("reporting").asLong() > 0 ? ", " + body.path("reporting").asLong() + " known from their reports only" : "")
                + (body.path("refusedCount").asLong() > 0 ? ", " + body.path("refusedCount").asLong()
                + " announcements refused (--json shows the last ones)" : ""));
    }
}
