package io.rivulet;

import io.rivulet.security.AuthenticationException;
import io.rivulet.security.Authenticator;
import io.rivulet.security.Credentials;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** SETUP metadata: a raw token, or composite metadata carrying the token as an entry; both authenticate. */
class SetupMetadataTest
{
    private static final byte[] TOKEN = "s3cret".getBytes(StandardCharsets.UTF_8);

    @Test
    void shouldCarryTheTokenAsAnEntryOfCompositeSetupMetadata()
    {
        final Message setup = Message.of("data").metadata(Metadata.empty().with("tenant", "gold").encode());

        final byte[] metadata = Rivulet.setupMetadata(setup, TOKEN);

        final Metadata decoded = Metadata.decode(new UnsafeBuffer(metadata), 0, metadata.length);
        assertThat(decoded.get("tenant")).isEqualTo("gold");
        assertThat(decoded.get(Credentials.AUTHORIZATION)).isEqualTo("s3cret");
        assertThat(new ConnectionSetup(metadata, new byte[0], null, "a:1").metadata())
            .isEqualTo(Metadata.empty().with("tenant", "gold"));
        assertThat(Rivulet.setupMetadata(Message.of("data"), TOKEN)).isEqualTo(
            Metadata.empty().with(Credentials.AUTHORIZATION, TOKEN).encode());
        assertThat(Rivulet.setupMetadata(setup.metadata("raw"), new byte[0])).isEqualTo("raw".getBytes());
        assertThatThrownBy(() -> Rivulet.setupMetadata(setup.metadata("raw"), TOKEN))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("composite");
    }

    @Test
    void shouldAuthenticateARawTokenAndATokenEntry()
    {
        final Authenticator tokens = Authenticator.tokens("s3cret");

        tokens.authenticate(new Credentials(TOKEN, null, "a:1"));
        tokens.authenticate(new Credentials(Metadata.empty().with("tenant", "x").with(Credentials.AUTHORIZATION, TOKEN)
            .encode(), null, "a:1"));
        assertThatThrownBy(() -> tokens.authenticate(new Credentials(Metadata.empty().with("tenant", "x").encode(),
            null, "a:1"))).isInstanceOf(AuthenticationException.class).hasMessageContaining("no token");
        assertThatThrownBy(() -> tokens.authenticate(new Credentials(new byte[]{'R', 'M', 1, 0}, null, "a:1")))
            .isInstanceOf(AuthenticationException.class).hasMessageContaining("malformed");
    }

    @Test
    void shouldShowNoCompositeMetadataForARawTokenSetup()
    {
        final ConnectionSetup setup = new ConnectionSetup(TOKEN, "hi".getBytes(), "CN=x", "a:1");

        assertThat(setup.hasCompositeMetadata()).isFalse();
        assertThat(setup.metadata().isEmpty()).isTrue();
        assertThat(setup.dataUtf8()).isEqualTo("hi");
        assertThat(setup.principal()).isEqualTo("CN=x");
    }
}
