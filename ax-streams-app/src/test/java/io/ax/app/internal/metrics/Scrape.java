package io.ax.app.internal.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A page of Prometheus' text format, parsed into samples: enough for tests to read what a scrape says. */
public final class Scrape {
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** One sample line. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private final List<Sample> samples = new ArrayList<>();

    public Scrape(String text) {
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.find()) {
                throw new IllegalArgumentException("not a sample line: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
        }
    }

    public List<Sample> samples() {
        return samples;
    }

    /** The samples of {@code name} whose labels include every {@code key=value} pair given. */
    public List<Sample> find(String name, String... labelPairs) {
        List<Sample> found = new ArrayList<>();
        for (Sample sample : samples) {
            if (sample.name().equals(name) && matches(sample.labels(), labelPairs)) {
                found.add(sample);
            }
        }
        return found;
    }

    /** The sum of the samples {@link #find} returns (0 when there are none). */
    public double value(String name, String... labelPairs) {
        return find(name, labelPairs).stream().mapToDouble(Sample::value).sum();
    }

    private static boolean matches(Map<String, String> labels, String... pairs) {
        for (int i = 0; i < pairs.length; i += 2) {
            if (!pairs[i + 1].equals(labels.get(pairs[i]))) {
                return false;
            }
        }
        return true;
    }
}
