package io.ax.validation;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuoteTest {

    @Test
    void shouldQuoteAShortValueWholeAndALongOneAsAPrefixWithItsLengthAndHash() {
        assertThat(Quote.of("email")).isEqualTo("\"email\"");
        assertThat(Quote.of(null)).isEqualTo("null");
        String quoted = Quote.of("y".repeat(1_000_000));
        assertThat(quoted).hasSizeLessThan(120).startsWith("\"yyyy").contains("…\" (1000000 chars, sha-256 ");
        assertThat(Quote.of("y".repeat(999_999) + "z")).as("different long values stay apart").isNotEqualTo(quoted);
    }

    @Test
    void shouldReplaceControlCharactersAndNeverSplitASurrogatePair() {
        assertThat(Quote.of("a\nb\u0000c")).isEqualTo("\"a?b?c\"");
        String emoji = "\uD83D\uDE00";
        String quoted = Quote.of("x".repeat(39) + emoji + "x".repeat(100));
        assertThat(quoted).doesNotContain("\uD83D\"").doesNotContain("\uD83D…");
    }

    @Test
    void shouldKeepAValidKeyAndStandInForAnInvalidOne() {
        assertThat(Quote.key("invoice-42")).isEqualTo("invoice-42");
        assertThat(Quote.key(null)).isNull();
        assertThat(Quote.key("k".repeat(10_000))).hasSizeLessThan(60).startsWith("kkkk").contains("…#");
        assertThat(Quote.key("bad\u0001key")).startsWith("bad?key…#");
    }

    @Test
    void shouldTruncateToTheBoundSayingHowLongTheTextWas() {
        assertThat(Quote.truncate("short", 10)).isEqualTo("short");
        String cut = Quote.truncate("m".repeat(10_000), 100);
        assertThat(cut).hasSizeLessThanOrEqualTo(100).endsWith("… (truncated from 10000 chars)");
    }
}
