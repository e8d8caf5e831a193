package io.rivulet.micrometer.observation;

import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.rivulet.Connection;
import io.rivulet.Responder;
import io.rivulet.interceptor.ConnectionInfo;
import io.rivulet.interceptor.Interceptor;

import java.util.Objects;

/**
 * Micrometer {@code Observation}s of every request a node sends and serves, with the W3C trace context carried
 * across the wire in each request's composite metadata ({@code io.rivulet.Metadata}'s {@code traceparent} and
 * {@code tracestate} entries), so that a request across services shows as one trace:
 *
 * <pre>{@code
 * Rivulet node = Rivulet.launch(new Rivulet.Context()
 *     .interceptor(RivuletObservations.interceptor(observationRegistry)));
 * }</pre>
 *
 * <p>Requests this node sends are observed as {@value RivuletClientObservationConvention#NAME}, requests it
 * serves as {@value RivuletServerObservationConvention#NAME}; with Micrometer's
 * {@code DefaultMeterObservationHandler} each becomes a timer tagged with the interaction model, the route and the
 * outcome. An observation covers the whole request: until the reply, or a stream's or channel's end, error or
 * cancel. Which handlers the registry has decides the rest: a tracing bridge (OpenTelemetry, Brave) with its
 * propagating handlers writes the trace context into the request and reads it on the other side.
 *
 * <p>The trace context is added to the request's composite metadata, which is created when the request has no
 * metadata; a request whose metadata is the application's own raw bytes is sent unchanged (its trace does not
 * cross the wire; a DEBUG line says so). Topics, regions and {@code Connection.offer} are not observed.
 *
 * <p>Thread-safe.
 */
public final class RivuletObservations
{
    private RivuletObservations()
    {
    }

    /**
     * @param registry where the observations go.
     * @return the interceptor to register with {@code Rivulet.Context.interceptor}.
     */
    public static Interceptor interceptor(final ObservationRegistry registry)
    {
        return interceptor(registry, null, null);
    }

    /**
     * @param registry the observations' registry.
     * @param client   names and tags the requests sent, or null for {@link RivuletClientObservationConvention}
     *                 (a registry's global convention still applies).
     * @param server   names and tags the requests served, or null for {@link RivuletServerObservationConvention}.
     * @return the interceptor to register with {@code Rivulet.Context.interceptor}.
     */
    public static Interceptor interceptor(
        final ObservationRegistry registry,
        final ObservationConvention<RivuletRequesterContext> client,
        final ObservationConvention<RivuletResponderContext> server)
    {
        Objects.requireNonNull(registry, "registry");
        return new Interceptor()
        {
            @Override
            public Connection requester(final Connection connection)
            {
                return new ObservedConnection(connection, registry, client);
            }

            @Override
            public Responder responder(final Responder responder, final ConnectionInfo connection)
            {
                return ObservedResponder.wrap(responder, connection, registry, server);
            }

            @Override
            public String toString()
            {
                return "RivuletObservations";
            }
        };
    }
}
