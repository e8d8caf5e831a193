package io.rivulet.actors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Actor paths: parsing, formatting, equality and clear errors on malformed input. */
class ActorPathTest
{
    @Test
    void shouldParseAndFormatAPath()
    {
        final ActorPath path = ActorPath.parse("rivulet://10.0.0.2:7070/pricing");
        assertThat(path.authority()).isEqualTo("10.0.0.2:7070");
        assertThat(path.name()).isEqualTo("pricing");
        assertThat(path.isUnbound()).isFalse();
        assertThat(path.toString()).isEqualTo("rivulet://10.0.0.2:7070/pricing");
        assertThat(ActorPath.parse(path.toString())).isEqualTo(path);
    }

    @Test
    void shouldParseThePathOfAnUnboundSystem()
    {
        final ActorPath path = ActorPath.parse("rivulet://local/sink");
        assertThat(path.isUnbound()).isTrue();
        assertThat(path).isEqualTo(ActorPath.of(ActorSystem.UNBOUND, "sink"));
    }

    @Test
    void shouldTakeTheLastColonAsThePortSeparator()
    {
        final ActorPath path = ActorPath.parse("rivulet://[::1]:7070/a.b_c~d-e");
        assertThat(path.authority()).isEqualTo("[::1]:7070");
        assertThat(path.name()).isEqualTo("a.b_c~d-e");
    }

    @Test
    void shouldBeEqualByAuthorityAndName()
    {
        final ActorPath path = ActorPath.of("host:1", "a");
        assertThat(path).isEqualTo(ActorPath.of("host:1", "a"));
        assertThat(path.hashCode()).isEqualTo(ActorPath.of("host:1", "a").hashCode());
        assertThat(path).isNotEqualTo(ActorPath.of("host:2", "a"));
        assertThat(path).isNotEqualTo(ActorPath.of("host:1", "b"));
        assertThat(path).isNotEqualTo("rivulet://host:1/a");
    }

    @Test
    void shouldRejectMalformedPathsNamingThem()
    {
        for (final String bad : new String[] {
            "pricing", "http://host:1/a", "rivulet://", "rivulet:///a", "rivulet://host:1", "rivulet://nohost/a",
            "rivulet://host:/a", "rivulet://:7070/a", "rivulet://host:0/a", "rivulet://host:99999/a",
            "rivulet://host:port/a"})
        {
            assertThatThrownBy(() -> ActorPath.parse(bad))
                .as(bad)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + bad + "' is not an actor path");
        }
    }

    @Test
    void shouldRejectMalformedNames()
    {
        for (final String bad : new String[] {"", ".hidden", "-a", "~a", "bad/name", "a b", "x".repeat(129)})
        {
            assertThatThrownBy(() -> ActorPath.parse("rivulet://host:1/" + bad))
                .as(bad)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not an actor name");
            assertThatThrownBy(() -> ActorPath.requireName(bad)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> ActorPath.requireName(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ActorPath.requireName("x".repeat(128))).hasSize(128);
    }

    @Test
    void shouldRejectABadAuthority()
    {
        assertThatThrownBy(() -> ActorPath.of("nohost", "a"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'nohost' is not an actor system's address");
        assertThatThrownBy(() -> ActorPath.of(null, "a")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldFormatWithoutValidating()
    {
        assertThat(ActorPath.format("host:1", "any/thing")).isEqualTo("rivulet://host:1/any/thing");
    }
}
