package io.ax.app.internal.core;

import io.ax.schema.TaskState;

/** A transition the state table forbids: a bug in the rules, never the input's fault. */
public final class IllegalTransitionException extends IllegalStateException {
    public IllegalTransitionException(TaskState from, TaskState to) {
        super("illegal transition " + from + " -> " + to);
    }
}
