package io.ax.validation;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Bounded quoting of untrusted text in messages and outputs. Whatever a producer sends, a reason, a log line or
 * an output key that names it stays short: a value is quoted whole only when it is short, otherwise as a prefix
 * plus its length and a hash (so two different long values can still be told apart).
 */
public final class Quote {
    /** Longest value quoted whole. */
    public static final int MAX_QUOTED_CHARS = 64;
    private static final int PREFIX_CHARS = 40;

    private Quote() {
    }

    /** {@code "value"}, or {@code "prefix…" (N chars, sha-256 0123abcd)} for a long one; control characters become '?'. */
    public static String of(Object value) {
        if (value == null) {
            return "null";
        }
        String text = value.toString();
        if (text.length() <= MAX_QUOTED_CHARS) {
            return '"' + printable(text) + '"';
        }
        return '"' + printable(prefix(text, PREFIX_CHARS)) + "…\" (" + text.length() + " chars, sha-256 " + sha256Prefix(text) + ")";
    }

    /**
     * A stand-in for a record key that is not a valid taskId (too long, control characters), fit to key an output
     * record and fill its {@code taskId} field: short, printable, and the same for the same key.
     */
    public static String key(String key) {
        if (key == null) {
            return null;
        }
        if (key.length() <= MAX_QUOTED_CHARS && !hasControlCharacter(key)) {
            return key;
        }
        return printable(prefix(key, PREFIX_CHARS)) + "…#" + sha256Prefix(key);
    }

    /** A loop, not a stream: every decision quotes its task's key for the log context. */
    private static boolean hasControlCharacter(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /** {@code text} if at most {@code maxChars} long, else its prefix and how long it was. */
    public static String truncate(String text, int maxChars) {
        if (text == null || text.length() <= maxChars) {
            return text;
        }
        String suffix = "… (truncated from " + text.length() + " chars)";
        return prefix(text, Math.max(0, maxChars - suffix.length())) + suffix;
    }

    /** A prefix that does not split a surrogate pair. */
    private static String prefix(String text, int chars) {
        int end = Math.min(chars, text.length());
        if (end > 0 && end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(0, end);
    }

    private static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.chars().forEach(c -> out.append(Character.isISOControl(c) ? '?' : (char) c));
        return out.toString();
    }

    private static String sha256Prefix(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder(8);
            for (int i = 0; i < 4; i++) {
                hex.append(String.format("%02x", digest[i]));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
