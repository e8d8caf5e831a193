package io.rivulet;

import io.rivulet.spi.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.function.IntConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code rivulet.engineFailure}: close (default) or exit, read from the property, a clear error otherwise. */
class ContextEngineFailureTest
{
    private static final String PROPERTY = "rivulet.engineFailure";
    private static final Transport NO_TRANSPORT = UnlaunchedTransport.INSTANCE;

    @AfterEach
    void clearProperty()
    {
        System.clearProperty(PROPERTY);
    }

    @Test
    void shouldCloseByDefault()
    {
        final Rivulet.Context context = new Rivulet.Context();

        assertThat(context.engineFailure()).isEqualTo(EngineFailure.CLOSE);
        assertThat(context.engineFailureExit()).isNotNull();
    }

    @Test
    void shouldReadThePropertyInAnyCase()
    {
        System.setProperty(PROPERTY, " Exit ");
        assertThat(new Rivulet.Context().engineFailure()).isEqualTo(EngineFailure.EXIT);
        System.setProperty(PROPERTY, "close");
        assertThat(new Rivulet.Context().engineFailure()).isEqualTo(EngineFailure.CLOSE);
    }

    @Test
    void shouldNameThePropertyAndItsValuesForAnUnknownValue()
    {
        System.setProperty(PROPERTY, "restart");

        assertThatThrownBy(Rivulet.Context::new).isInstanceOf(ConfigurationException.class)
            .hasMessage("rivulet.engineFailure=restart: unknown value; one of close, exit");
    }

    @Test
    void shouldTakeTheSettersAndRefuseNulls()
    {
        final IntConsumer exit = status -> { };
        final Rivulet.Context context = new Rivulet.Context().engineFailure(EngineFailure.EXIT).engineFailureExit(exit);
        assertThat(context.engineFailure()).isEqualTo(EngineFailure.EXIT);
        assertThat(context.engineFailureExit()).isSameAs(exit);

        assertThatThrownBy(() -> new Rivulet.Context().transport(NO_TRANSPORT).engineFailure(null).conclude())
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("engineFailure");
        assertThatThrownBy(() -> new Rivulet.Context().transport(NO_TRANSPORT).engineFailureExit(null).conclude())
            .isInstanceOf(ConfigurationException.class).hasMessageContaining("engineFailureExit");
    }
}
