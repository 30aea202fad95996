package io.ax.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ax status}: one task as a scheduler instance's query API reports it. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Show one task: its state, job type, owner, next due time, the execution in flight and its"
                + " attempts, the partition and instance that own it, and its history: the last state changes"
                + " (ax.history.max.events), oldest first, with workers and errors. Asks a scheduler instance's HTTP query API."
                + " Exit code 1 when the task is not known.")
public final class StatusCommand implements Callable<Integer> {
    private static final Set<String> SHOWN = Set.of("taskId", "state", "jobType", "owner", "priority", "nextDueAt",
            "execution", "attempts", "partition", "instance", "history");

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "TASK", description = "The taskId.")
    String taskId;

    @Option(names = "--json", description = "Print the task as the API answered it, one JSON object.")
    boolean json;

    @Mixin
    HttpOptions http;

    @Override
    public Integer call() {
        QueryApi.Answer answer = http.api(System.getenv()).task(taskId);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(answer.body());
        } else {
            print(out, answer.body());
        }
        out.flush();
        return CliErrors.OK;
    }

    private static void print(PrintWriter out, JsonNode task) {
        row(out, "task", text(task, "taskId"));
        row(out, "state", text(task, "state"));
        row(out, "job type", text(task, "jobType"));
        row(out, "owner", text(task, "owner"));
        row(out, "priority", text(task, "priority"));
        row(out, "next due", text(task, "nextDueAt"));
        JsonNode execution = task.path("execution");
        if (execution.isObject()) {
            row(out, "execution", text(execution, "executionId") + "  attempt " + text(execution, "attempt") + "  due "
                    + text(execution, "dueAt") + "  worker " + text(execution, "workerId"));
        } else {
            row(out, "execution", "-");
        }
        JsonNode attempts = task.path("attempts");
        if (attempts.isArray() && !attempts.isEmpty()) {
            row(out, "attempts", attempts.size() + "");
            for (JsonNode attempt : attempts) {
                out.println("    " + (attempt.isObject() ? describeAttempt(attempt) : attempt.toString()));
            }
        } else {
            row(out, "attempts", attempts.isMissingNode() || attempts.isNull() || attempts.isArray() ? "-" : attempts.asText());
        }
        row(out, "partition", text(task, "partition") + "  (instance " + text(task, "instance") + ")");
        for (Iterator<Map.Entry<String, JsonNode>> fields = task.fields(); fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            if (!SHOWN.contains(field.getKey())) {
                row(out, field.getKey(), field.getValue().isValueNode() ? field.getValue().asText() : field.getValue().toString());
            }
        }
        JsonNode history = task.path("history");
        if (history.isArray()) {
            row(out, "history", history.isEmpty() ? "-" : history.size() + " change(s), oldest first");
            for (JsonNode change : history) {
                out.println("    " + (change.isObject() ? describeChange(change) : change.toString()));
            }
        }
    }

    /** One state change: when, from and to, which execution and attempt, the worker and the reason where known. */
    private static String describeChange(JsonNode change) {
        StringBuilder line = new StringBuilder(text(change, "at")).append("  ")
                .append(change.hasNonNull("from") ? text(change, "from") + " -> " : "").append(text(change, "to"));
        if (change.hasNonNull("executionId")) {
            line.append("  ").append(text(change, "executionId")).append(" #").append(text(change, "attempt"));
        }
        if (change.hasNonNull("workerId")) {
            line.append("  worker ").append(text(change, "workerId"));
        }
        // A report's transition has "worker W" as its whole reason: said once.
        if (change.hasNonNull("reason") && !text(change, "reason").equals("worker " + text(change, "workerId"))) {
            line.append("  ").append(text(change, "reason"));
        }
        return line.toString();
    }

    /** An attempt as the API gives it: its number, time, outcome and message where present. */
    private static String describeAttempt(JsonNode attempt) {
        StringBuilder line = new StringBuilder("attempt " + text(attempt, "attempt"));
        for (String field : new String[] {"at", "status", "timedOut", "retryable", "message"}) {
            if (attempt.hasNonNull(field)) {
                line.append("  ").append(field.equals("timedOut") || field.equals("retryable") ? field + "=" : "")
                        .append(attempt.get(field).asText());
            }
        }
        return line.toString();
    }

    private static void row(PrintWriter out, String label, String value) {
        out.printf("%-10s %s%n", label, value);
    }

    static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isMissingNode() || value.isNull() ? "-" : value.isValueNode() ? value.asText() : value.toString();
    }
}
