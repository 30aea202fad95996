package io.ax.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.ax.schema.TaskState;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ax list}: tasks as a scheduler instance's query API lists them, a page at a time. */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "List tasks, filtered by state, job type and owner, one page at a time (the command prints how to"
                + " get the next page). Asks a scheduler instance's HTTP query API.")
public final class ListCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--state", paramLabel = "S", description = "Only tasks in this state (WAITING, PENDING, TRIGGERED, RUNNING,"
            + " RETRY_WAITING, SUCCESS, FAILED, CANCELLED).")
    String state;

    @Option(names = "--job-type", paramLabel = "J", description = "Only this job type.")
    String jobType;

    @Option(names = "--owner", paramLabel = "O", description = "Only this owner.")
    String owner;

    @Option(names = "--limit", paramLabel = "N", description = "At most N tasks in this page (default: the API's).")
    Integer limit;

    @Option(names = "--cursor", paramLabel = "C", description = "Where the previous page ended (its nextCursor).")
    String cursor;

    @Option(names = "--json", description = "Print the page as the API answered it: {\"tasks\":[...],\"nextCursor\":...}.")
    boolean json;

    @Mixin
    HttpOptions http;

    @Override
    public Integer call() {
        requireKnownState();
        if (limit != null && limit < 1) {
            throw new ParameterException(spec.commandLine(), "--limit must be at least 1: " + limit);
        }
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("state", state == null ? null : state.toUpperCase(java.util.Locale.ROOT));
        parameters.put("jobType", jobType);
        parameters.put("owner", owner);
        parameters.put("limit", limit);
        parameters.put("cursor", cursor);
        JsonNode page = http.api(System.getenv()).tasks(parameters).body();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(page);
        } else {
            print(out, page);
        }
        out.flush();
        return CliErrors.OK;
    }

    private void requireKnownState() {
        if (state != null && Arrays.stream(TaskState.values()).noneMatch(s -> s.name().equalsIgnoreCase(state))) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--state': '" + state
                    + "' (expected one of " + Arrays.toString(TaskState.values()) + ")");
        }
    }

    private void print(PrintWriter out, JsonNode page) {
        JsonNode tasks = page.path("tasks");
        String format = "%-24s %-14s %-16s %-12s %-3s %-24s %s%n";
        out.printf(format, "TASK", "STATE", "JOB TYPE", "OWNER", "PRI", "NEXT DUE", "EXECUTION");
        int count = 0;
        for (JsonNode task : tasks) {
            JsonNode execution = task.path("execution");
            String exec = execution.isObject() ? StatusCommand.text(execution, "executionId") + " #" + StatusCommand.text(execution, "attempt") : "-";
            out.printf(format, StatusCommand.text(task, "taskId"), StatusCommand.text(task, "state"),
                    StatusCommand.text(task, "jobType"), StatusCommand.text(task, "owner"), StatusCommand.text(task, "priority"),
                    StatusCommand.text(task, "nextDueAt"), exec);
            count++;
        }
        JsonNode next = page.path("nextCursor");
        if (next.isMissingNode() || next.isNull() || next.asText().isEmpty()) {
            out.println(count + " task(s); last page");
        } else {
            out.println(count + " task(s); next page: ax list " + repeatArguments() + "--cursor " + next.asText());
        }
    }

    private String repeatArguments() {
        StringBuilder args = new StringBuilder();
        if (state != null) {
            args.append("--state ").append(state).append(' ');
        }
        if (jobType != null) {
            args.append("--job-type ").append(jobType).append(' ');
        }
        if (owner != null) {
            args.append("--owner ").append(owner).append(' ');
        }
        if (limit != null) {
            args.append("--limit ").append(limit).append(' ');
        }
        return args.toString();
    }
}
