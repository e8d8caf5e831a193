package io.rivulet.topic;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopicPatternTest
{
    @ParameterizedTest(name = "{0} ~ {1} = {2}")
    @CsvSource({
        "md.quotes.EURUSD,   md.quotes.EURUSD,       true",
        "md.quotes.EURUSD,   md.quotes.GBPUSD,       false",
        "md.quotes.*,        md.quotes.EURUSD,       true",
        "md.quotes.*,        md.quotes,              false",
        "md.quotes.*,        md.quotes.EURUSD.depth, false",
        "md.*.EURUSD,        md.quotes.EURUSD,       true",
        "md.*.EURUSD,        md.trades.EURUSD,       true",
        "md.*.EURUSD,        md.trades.GBPUSD,       false",
        "md.>,               md.quotes,              true",
        "md.>,               md.quotes.EURUSD.depth, true",
        "md.>,               md,                     false",
        ">,                  md,                     true",
        ">,                  md.quotes.EURUSD,       true",
        "*,                  md,                     true",
        "*,                  md.quotes,              false",
        "*.*.*,              md.quotes.EURUSD,       true",
        "md.*.>,             md.quotes,              false",
        "md.*.>,             md.quotes.EURUSD,       true",
        "md.quotes,          md.quotes.EURUSD,       false",
        "md.quotes.EURUSD,   md.quotes,              false"
    })
    void shouldMatchLikeNats(final String pattern, final String name, final boolean matches)
    {
        assertThat(TopicPattern.pattern(pattern).matches(TopicPattern.name(name))).isEqualTo(matches);
    }

    @ParameterizedTest
    @ValueSource(strings = { "", ".", "md.", ".md", "md..quotes", "md.>.quotes", "md.quo tes", "md.quo*tes", "md.q>",
        "m\u00e9.x" })
    void shouldRejectBadPatterns(final String pattern)
    {
        assertThatThrownBy(() -> TopicPattern.pattern(pattern)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = { "md.*", "md.>", "*", ">" })
    void shouldRejectWildcardsInNames(final String name)
    {
        assertThatThrownBy(() -> TopicPattern.name(name)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("wildcards");
        assertThat(TopicPattern.pattern(name).isWildcard()).isTrue();
    }

    @Test
    void shouldBoundTheLength()
    {
        final String longest = "a".repeat(io.rivulet.codec.FrameReader.MAX_TOPIC_LENGTH);
        assertThat(TopicPattern.name(longest).text()).isEqualTo(longest);
        assertThatThrownBy(() -> TopicPattern.name(longest + "b")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("longer than " + io.rivulet.codec.FrameReader.MAX_TOPIC_LENGTH);
        assertThat(io.rivulet.codec.FrameWriter.topicAttachLength(longest.length())).isLessThanOrEqualTo(256);
        assertThat(io.rivulet.codec.FrameWriter.topicDetachLength(200)).isLessThanOrEqualTo(256);
    }

    @Test
    void shouldAcceptPrintableAsciiTokens()
    {
        assertThat(TopicPattern.name("md.fx-spot.EUR/USD:1_2").text()).isEqualTo("md.fx-spot.EUR/USD:1_2");
        assertThat(TopicPattern.pattern("md.quotes.*").isWildcard()).isTrue();
        assertThat(TopicPattern.pattern("md.quotes.EURUSD").isWildcard()).isFalse();
    }
}
