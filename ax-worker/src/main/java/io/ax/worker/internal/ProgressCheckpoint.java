package io.ax.worker.internal;

import io.ax.validation.ScheduleValidator;

/** Checks a progress checkpoint before it is sent, so a handler learns of a bad one where it saves it. */
public final class ProgressCheckpoint {
    private ProgressCheckpoint() {
    }

    public static String check(String progress) {
        if (progress == null) {
            throw new IllegalArgumentException("progress must not be null");
        }
        if (progress.length() > ScheduleValidator.MAX_PROGRESS_CHARS) {
            throw new IllegalArgumentException("progress is longer than " + ScheduleValidator.MAX_PROGRESS_CHARS
                    + " chars: " + progress.length());
        }
        return progress;
    }
}
