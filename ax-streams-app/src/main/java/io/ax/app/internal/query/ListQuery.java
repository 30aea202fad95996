package io.ax.app.internal.query;

import io.ax.schema.TaskState;
import io.ax.validation.Quote;
import io.ax.validation.ScheduleValidator;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Base64;
import java.util.StringJoiner;
import java.util.function.Function;

/**
 * One page of {@code GET /tasks}: the filters (all optional, ANDed), the page size and where the page starts. Pages are
 * in taskId order (the byte order of the UTF-8 form); {@code cursor} is an opaque token naming the last taskId already
 * seen, from a previous answer's {@code nextCursor}.
 *
 * @param dueBeforeMs only tasks whose next occurrence is due before this (so only tasks with one), or null
 * @param after the taskId the page starts after, or null for the first page
 */
record ListQuery(TaskState state, String jobType, String owner, Long dueBeforeMs, int limit, String after) {
    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 1000;
    /** Earliest and latest instant a parameter takes: the range of every instant ax stores (topology-docs/LIMITS.md). */
    static final long MIN_INSTANT_MS = 0;
    static final long MAX_INSTANT_MS = ScheduleValidator.MAX_INSTANT_MS;
    /** Longest jobType (ScheduleValidator's pattern). */
    static final int JOB_TYPE_CHARS = 128;

    /** The query of a request's parameters ({@code param} answers null for an absent one). */
    static ListQuery parse(Function<String, String> param) {
        return new ListQuery(state(param.apply("state")), text("jobType", param.apply("jobType"), JOB_TYPE_CHARS),
                text("owner", param.apply("owner"), ScheduleValidator.MAX_OWNER_CHARS), instant("dueBefore", param.apply("dueBefore")),
                limit(param.apply("limit")), cursor(param.apply("cursor")));
    }

    ListQuery withState(TaskState newState) {
        return new ListQuery(newState, jobType, owner, dueBeforeMs, limit, after);
    }

    /** The same query as request parameters, for asking another instance. */
    String toQueryString() {
        StringJoiner query = new StringJoiner("&");
        add(query, "state", state == null ? null : state.name());
        add(query, "jobType", jobType);
        add(query, "owner", owner);
        add(query, "dueBefore", dueBeforeMs == null ? null : Long.toString(dueBeforeMs));
        add(query, "limit", Integer.toString(limit));
        add(query, "cursor", after == null ? null : cursorOf(after));
        return query.toString();
    }

    static String cursorOf(String taskId) {
        return taskId == null ? null : Base64.getUrlEncoder().withoutPadding().encodeToString(taskId.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether a task with these indexed fields is in the answer. */
    boolean matches(TaskState taskState, String taskJobType, String taskOwner, Long nextDueAtMs) {
        return (state == null || state == taskState)
                && (jobType == null || jobType.equals(taskJobType))
                && (owner == null || owner.equals(taskOwner))
                && (dueBeforeMs == null || (nextDueAtMs != null && nextDueAtMs < dueBeforeMs));
    }

    private static void add(StringJoiner query, String name, String value) {
        if (value != null) {
            query.add(name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
        }
    }

    private static String blankToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    private static TaskState state(String value) {
        if (blankToNull(value) == null) {
            return null;
        }
        try {
            return TaskState.valueOf(value);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("state must be one of " + Arrays.toString(TaskState.values()) + ": " + Quote.of(value));
        }
    }

    static Long instant(String name, String value) {
        if (blankToNull(value) == null) {
            return null;
        }
        long ms;
        try {
            ms = value.chars().allMatch(Character::isDigit) ? Long.parseLong(value) : Instant.parse(value).toEpochMilli();
        } catch (NumberFormatException | DateTimeParseException | ArithmeticException e) { // ArithmeticException: beyond a long of ms
            throw HttpError.badRequest(name + " must be an ISO-8601 instant or epoch milliseconds from " + Instant.ofEpochMilli(MIN_INSTANT_MS)
                    + " to " + Instant.ofEpochMilli(MAX_INSTANT_MS) + ": " + Quote.of(value));
        }
        if (ms < MIN_INSTANT_MS || ms > MAX_INSTANT_MS) {
            throw HttpError.badRequest(name + " must be from " + Instant.ofEpochMilli(MIN_INSTANT_MS) + " to "
                    + Instant.ofEpochMilli(MAX_INSTANT_MS) + ": " + Quote.of(value));
        }
        return ms;
    }

    /** A text filter, at most {@code maxChars} long (what the field it matches can hold). */
    private static String text(String name, String value, int maxChars) {
        String text = blankToNull(value);
        if (text != null && text.length() > maxChars) {
            throw HttpError.badRequest(name + " is longer than " + maxChars + " chars: " + Quote.of(text));
        }
        return text;
    }

    private static int limit(String value) {
        if (blankToNull(value) == null) {
            return DEFAULT_LIMIT;
        }
        try {
            int limit = Integer.parseInt(value);
            if (limit >= 1 && limit <= MAX_LIMIT) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw HttpError.badRequest("limit must be 1-" + MAX_LIMIT + ": " + Quote.of(value));
    }

    private static String cursor(String value) {
        if (blankToNull(value) == null) {
            return null;
        }
        try {
            String after = new String(Base64.getUrlDecoder().decode(value), StandardCharsets.UTF_8);
            ScheduleValidator.validateTaskId(after);
            return after;
        } catch (IllegalArgumentException | io.ax.InvalidRequestException e) {
            throw HttpError.badRequest("cursor is not one this API gave out: " + Quote.of(value));
        }
    }

}
