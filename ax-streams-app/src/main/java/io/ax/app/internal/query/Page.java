package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Tasks of one listing in taskId order, from one partition, one instance or all of them, and how far the source has
 * looked: every matching task up to {@code resumeAfter} (inclusive) is in {@code tasks} or on an earlier page. Null
 * {@code resumeAfter}: the source has nothing more. A source may stop early (a page full, or a bounded scan over
 * tasks that do not match), so a page can hold fewer tasks than asked, even none, with more to come.
 */
record Page(List<ObjectNode> tasks, String resumeAfter) {
    static final Comparator<String> TASK_ID_ORDER = (a, b) -> Arrays.compareUnsigned(
            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

    /**
     * One page of at most {@code limit} tasks from pages of several sources, exact: only tasks up to the point every
     * source has looked at are taken, so a task a source has not reached yet cannot be skipped by the next page.
     */
    static Page merge(List<Page> pages, int limit) {
        String bound = null;
        for (Page page : pages) {
            if (page.resumeAfter() != null && (bound == null || TASK_ID_ORDER.compare(page.resumeAfter(), bound) < 0)) {
                bound = page.resumeAfter();
            }
        }
        List<ObjectNode> candidates = new ArrayList<>();
        for (Page page : pages) {
            for (ObjectNode task : page.tasks()) {
                if (bound == null || TASK_ID_ORDER.compare(taskId(task), bound) <= 0) {
                    candidates.add(task);
                }
            }
        }
        candidates.sort(Comparator.comparing(Page::taskId, TASK_ID_ORDER));
        if (candidates.size() >= limit) {
            List<ObjectNode> taken = List.copyOf(candidates.subList(0, limit));
            boolean more = candidates.size() > limit || bound != null;
            return new Page(taken, more ? taskId(taken.get(limit - 1)) : null);
        }
        return new Page(List.copyOf(candidates), bound);
    }

    private static String taskId(ObjectNode task) {
        return task.get("taskId").asText();
    }

    /** The internal form, between instances: {@code {"tasks":[…], "resumeAfter": taskId|null}}. */
    ObjectNode toInternalJson() {
        ObjectNode json = TaskView.MAPPER.createObjectNode();
        ArrayNode array = json.putArray("tasks");
        tasks.forEach(array::add);
        json.put("resumeAfter", resumeAfter);
        return json;
    }

    static Page fromInternalJson(ObjectNode json) {
        List<ObjectNode> tasks = new ArrayList<>();
        json.withArray("tasks").forEach(task -> tasks.add((ObjectNode) task));
        return new Page(tasks, json.hasNonNull("resumeAfter") ? json.get("resumeAfter").asText() : null);
    }

    /** The public form: {@code {"tasks":[…], "nextCursor": "…"|null}}. */
    ObjectNode toPublicJson() {
        ObjectNode json = TaskView.MAPPER.createObjectNode();
        ArrayNode array = json.putArray("tasks");
        tasks.forEach(array::add);
        json.put("nextCursor", ListQuery.cursorOf(resumeAfter));
        return json;
    }
}
