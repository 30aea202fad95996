package io.ax.app.fuzz;

import io.ax.AxTopics;

/** The scheduler's input topics. A corpus folder is named for its topic with the default prefix ({@code ax.requests}). */
public enum FuzzTopic {
    REQUESTS, RESULTS, RETRY;

    public String name(AxTopics topics) {
        return switch (this) {
            case REQUESTS -> topics.requests();
            case RESULTS -> topics.results();
            case RETRY -> topics.retry();
        };
    }

    /** The corpus folder of this topic. */
    public String folder() {
        return name(AxTopics.defaults());
    }
}
