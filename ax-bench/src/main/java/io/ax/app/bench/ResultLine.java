package io.ax.app.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One benchmark result, printed as a single line that scripts can grep and split:
 * {@code RESULT scenario=<name> n=<N> key=value key=value ...}. Times are in ms and rates per second; values
 * are integers, carry one or two decimals, or are a word ({@link #add(String, String)}). Keys keep the order they were added in.
 *
 * <p>Immutable once built; not thread-safe while being built.
 */
public final class ResultLine {
    public static final String PREFIX = "RESULT";
    private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9_]*");
    private static final Pattern WORD = Pattern.compile("[A-Za-z0-9_:,.-]+");

    private final Map<String, String> values = new LinkedHashMap<>();

    private ResultLine(String scenario, long n) {
        values.put("scenario", Objects.requireNonNull(scenario, "scenario"));
        values.put("n", Long.toString(n));
    }

    /** A line for {@code scenario} measured over {@code n} tasks or records. */
    public static ResultLine of(String scenario, long n) {
        if (!KEY.matcher(scenario).matches()) {
            throw new IllegalArgumentException("scenario must match " + KEY + ": " + scenario);
        }
        return new ResultLine(scenario, n);
    }

    /** Adds an integer value. */
    public ResultLine add(String key, long value) {
        return put(key, Long.toString(value));
    }

    /** Adds a value rounded to one decimal ({@code 12.3}); NaN and infinities are refused. */
    public ResultLine add(String key, double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(key + " must be a finite number: " + value);
        }
        // Two decimals below 10 (a ratio of 0.46 must not print as 0.5), one above.
        return put(key, String.format(Locale.ROOT, Math.abs(value) < 10 ? "%.2f" : "%.1f", value));
    }

    /** Adds a word: letters, digits and {@code _ : , . -} (a name, e.g. {@code event=kill_a}; no spaces). */
    public ResultLine add(String key, String word) {
        if (word == null || !WORD.matcher(word).matches()) {
            throw new IllegalArgumentException(key + " must be a word of [A-Za-z0-9_:,.-]: " + word);
        }
        return put(key, word);
    }

    /** {@code text} as a word for {@link #add(String, String)}: any other character becomes {@code _}, nothing {@code none}. */
    public static String word(String text) {
        return text.isEmpty() ? "none" : text.replaceAll("[^A-Za-z0-9_:,.-]", "_");
    }

    private ResultLine put(String key, String value) {
        if (!KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("key must match " + KEY + ": " + key);
        }
        if (values.containsKey(key)) {
            throw new IllegalArgumentException("duplicate key: " + key);
        }
        values.put(key, value);
        return this;
    }

    public String scenario() {
        return values.get("scenario");
    }

    /** Every key and its printed value, scenario and n first. */
    public Map<String, String> values() {
        return Collections.unmodifiableMap(values);
    }

    /** The printed value of {@code key}, or null. */
    public String get(String key) {
        return values.get(key);
    }

    @Override
    public String toString() {
        StringBuilder line = new StringBuilder(PREFIX);
        values.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        return line.toString();
    }

    /**
     * Reads a line printed by {@link #toString()} back into its keys and values (for tests and scripts).
     *
     * @throws IllegalArgumentException when the line is not a RESULT line
     */
    public static Map<String, String> parse(String line) {
        String[] parts = line.trim().split(" ");
        if (parts.length < 3 || !parts[0].equals(PREFIX)) {
            throw new IllegalArgumentException("not a RESULT line: " + line);
        }
        Map<String, String> parsed = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("not key=value: '" + parts[i] + "' in " + line);
            }
            parsed.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
        }
        return parsed;
    }
}
