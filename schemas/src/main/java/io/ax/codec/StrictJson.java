package io.ax.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.ax.InvalidRequestException;
import io.ax.validation.Quote;
import java.io.IOException;

/**
 * The one JSON reader of ax's inputs, with the topics' rules: nesting at most {@value #MAX_NESTING_DEPTH} levels,
 * number literals at most {@value #MAX_NUMBER_CHARS} chars (Jackson's {@link StreamReadConstraints}, checked while
 * parsing, before anything is built), a field named twice at any depth refused
 * ({@link StreamReadFeature#STRICT_DUPLICATE_DETECTION}: which one would win is not obvious to a sender), and nothing
 * after the value. {@link JsonForms} parses the request topics with the same constraints (and refuses duplicates
 * itself, keeping a payload byte for byte); the flow topics and the HTTP API read through this class. A failure is an
 * {@link InvalidRequestException} with a short message.
 */
public final class StrictJson {
    /** Deepest nesting accepted anywhere in an input (payload included). */
    public static final int MAX_NESTING_DEPTH = 64;
    /** Longest number literal accepted (digits), so no field can hold a number that costs more to parse. */
    public static final int MAX_NUMBER_CHARS = 400;

    /** The parser limits every JSON input shares. */
    static final StreamReadConstraints CONSTRAINTS = StreamReadConstraints.builder()
            .maxNestingDepth(MAX_NESTING_DEPTH)
            .maxNumberLength(MAX_NUMBER_CHARS)
            .build();

    /** Numbers kept as written (a payload re-serialised from the tree stays exact). */
    private static final ObjectMapper EXACT = configure(new ObjectMapper(factory()))
            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

    private StrictJson() {
    }

    /** A factory with the topics' rules (constraints and duplicate detection), for a mapper of one's own. */
    public static JsonFactory factory() {
        return JsonFactory.builder().streamReadConstraints(CONSTRAINTS).enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
    }

    /** A mapper on {@link #factory()} that refuses content after the value; configure it further as needed. */
    public static ObjectMapper mapper() {
        return configure(new ObjectMapper(factory()));
    }

    private static ObjectMapper configure(ObjectMapper mapper) {
        return mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
    }

    /** The tree of one JSON value, numbers exact; JSON {@code null} and empty input are refused. */
    public static JsonNode readTree(byte[] json) {
        return read(EXACT, json, JsonNode.class);
    }

    /** One JSON value bound to {@code type} by {@code mapper} (one of {@link #mapper()}). */
    public static <T> T read(ObjectMapper mapper, byte[] json, Class<T> type) {
        if (json == null || json.length == 0) {
            throw new InvalidRequestException(null, "empty JSON");
        }
        try {
            T value = mapper.readValue(json, type);
            if (value == null || value instanceof JsonNode node && (node.isNull() || node.isMissingNode())) {
                throw new InvalidRequestException(null, "JSON null, not a " + type.getSimpleName());
            }
            return value;
        } catch (IOException e) {
            throw new InvalidRequestException(null, "malformed JSON: " + describe(e));
        }
    }

    /** The first line of a parser's message, short (it may quote the input). */
    public static String describe(IOException e) {
        String message = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        if (message == null) {
            return "unreadable";
        }
        int newline = message.indexOf('\n');
        return Quote.truncate(newline < 0 ? message : message.substring(0, newline), 300);
    }
}
