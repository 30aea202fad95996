package io.ax.app.cli;

import io.ax.AxTopics;
import io.ax.app.config.AxConfig;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code --topic-prefix}, for every command that reads or writes ax's topics. */
final class TopicOptions {
    @Option(names = "--topic-prefix", description = "Topic prefix (default: ax.topic.prefix from --config or -D, else "
            + AxTopics.DEFAULT_PREFIX + ").")
    String prefix;

    AxTopics topics(Map<String, String> settings) {
        return new AxTopics(prefix != null ? prefix : settings.getOrDefault(AxConfig.TOPIC_PREFIX_CONFIG, AxTopics.DEFAULT_PREFIX));
    }
}
