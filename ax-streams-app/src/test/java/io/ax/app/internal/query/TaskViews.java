package io.ax.app.internal.query;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ax.schema.StoredTask;

/** {@link TaskView} for tests in other packages (what {@code GET /tasks/{id}} serves for a stored task). */
public final class TaskViews {
    private TaskViews() {
    }

    public static ObjectNode of(StoredTask task, int partition, String instance) {
        return TaskView.of(task, partition, instance);
    }
}
