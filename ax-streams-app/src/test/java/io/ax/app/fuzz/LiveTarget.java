package io.ax.app.fuzz;

import java.nio.charset.StandardCharsets;

/**
 * Marks an input that acts on a live execution. The run first schedules {@link #SETUP_REQUEST} (with
 * {@code maxRetries}) under the input's key and waits for its first dispatch; then, for each of the first
 * {@code attempts} attempts dispatched, it sends the input's value with {@value #EXECUTION_ID} and
 * {@value #ATTEMPT} replaced by that dispatch's executionId and attempt. Live values are JSON.
 */
public record LiveTarget(int maxRetries, int attempts) {
    public static final String EXECUTION_ID = "{{executionId}}";
    public static final String ATTEMPT = "{{attempt}}";
    public static final String JOB_TYPE = "fuzz-live";

    public LiveTarget {
        if (maxRetries < 0 || attempts < 1) {
            throw new IllegalArgumentException("maxRetries >= 0 and attempts >= 1: " + maxRetries + ", " + attempts);
        }
    }

    /** The request that creates the live task: due at once, quick retries without jitter. */
    public String setupRequest() {
        return "{\"jobType\":\"" + JOB_TYPE + "\",\"delayMs\":0,\"maxRetries\":" + maxRetries
                + ",\"backoffMs\":1,\"jitter\":false}";
    }

    /** The template with the dispatch's executionId and attempt filled in. */
    public static byte[] render(byte[] template, String executionId, int attempt) {
        String text = new String(template, StandardCharsets.UTF_8);
        return text.replace(EXECUTION_ID, executionId).replace(ATTEMPT, Integer.toString(attempt))
                .getBytes(StandardCharsets.UTF_8);
    }
}
