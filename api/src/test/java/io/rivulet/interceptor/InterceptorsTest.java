package io.rivulet.interceptor;

import io.rivulet.Connection;
import io.rivulet.Message;
import io.rivulet.Responder;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The chain: nothing wrapped without interceptors, the first registered outermost, the connection's info given. */
class InterceptorsTest
{
    @Test
    void withoutInterceptorsNothingIsWrapped()
    {
        final Responder responder = Responder.none();
        assertThat(Interceptors.of(List.of())).isSameAs(Interceptors.NONE);
        assertThat(Interceptors.NONE.isEmpty()).isTrue();
        assertThat(Interceptors.NONE.responder(responder, 7, "a:1", "b:2", true)).isSameAs(responder);
    }

    @Test
    void theFirstRegisteredIsOutermostOnBothSides()
    {
        final List<String> calls = new ArrayList<>();
        final List<ConnectionInfo> infos = new ArrayList<>();
        final Interceptors chain = Interceptors.of(List.of(tagging("outer", calls, infos),
            tagging("inner", calls, infos)));

        final Responder served = chain.responder(Responder.builder().requestResponse(Mono::just).build(), 7,
            "127.0.0.1:1", "127.0.0.1:2", false);
        served.requestResponse().apply(Message.of("x")).block();
        assertThat(calls).containsExactly("outer", "inner");
        assertThat(infos).containsOnly(new ConnectionInfo(7, "127.0.0.1:1", "127.0.0.1:2", false));

        calls.clear();
        chain.requester(new EchoConnection()).requestResponse(Message.of("y")).block();
        assertThat(calls).containsExactly("outer", "inner");
    }

    @Test
    void anInterceptorMustReturnSomething()
    {
        final Interceptors chain = Interceptors.of(List.of(new Interceptor()
        {
            @Override
            public Responder responder(final Responder responder, final ConnectionInfo connection)
            {
                return null;
            }
        }));
        assertThatThrownBy(() -> chain.responder(Responder.none(), 1, "a:1", "b:2", true))
            .isInstanceOf(NullPointerException.class).hasMessageContaining("interceptor");
    }

    private static Interceptor tagging(final String name, final List<String> calls, final List<ConnectionInfo> infos)
    {
        return new Interceptor()
        {
            @Override
            public Connection requester(final Connection connection)
            {
                return new ForwardingConnection(connection)
                {
                    @Override
                    public Mono<Message> requestResponse(final Message request)
                    {
                        calls.add(name);
                        return super.requestResponse(request);
                    }
                };
            }

            @Override
            public Responder responder(final Responder responder, final ConnectionInfo connection)
            {
                infos.add(connection);
                return Responder.builder().requestResponse(message ->
                {
                    calls.add(name);
                    return responder.requestResponse().apply(message);
                }).build();
            }
        };
    }

    /** Answers a request-response with the request; nothing else. */
    private static final class EchoConnection implements Connection
    {
        @Override
        public Mono<Void> fireAndForget(final io.rivulet.Message message)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public Mono<Message> requestResponse(final Message request)
        {
            return Mono.just(request);
        }

        @Override
        public reactor.core.publisher.Flux<Message> requestStream(final Message request)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public reactor.core.publisher.Flux<Message> requestChannel(
            final org.reactivestreams.Publisher<Message> outbound)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public reactor.core.publisher.Flux<io.rivulet.topic.TopicMessage> subscribe(final String pattern)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public Mono<io.rivulet.region.RemoteRegion> remoteRegion(final String name)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public io.rivulet.region.RemoteRegion remoteRegion(final io.rivulet.region.RegionDescriptor descriptor)
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public long offer(final org.agrona.DirectBuffer buffer, final int offset, final int length)
        {
            return CLOSED;
        }

        @Override
        public long tryClaim(final int length, final io.rivulet.MessageClaim claim)
        {
            return CLOSED;
        }

        @Override
        public long offer(final org.agrona.DirectBuffer buffer, final int offset, final int length,
            final java.time.Duration timeout)
        {
            return CLOSED;
        }

        @Override
        public long tryClaim(final int length, final io.rivulet.MessageClaim claim, final java.time.Duration timeout)
        {
            return CLOSED;
        }

        @Override
        public int maxOfferLength()
        {
            return 0;
        }

        @Override
        public String remoteAddress()
        {
            return "127.0.0.1:2";
        }

        @Override
        public boolean isOpen()
        {
            return true;
        }

        @Override
        public Mono<Void> onClose()
        {
            return Mono.never();
        }

        @Override
        public void close()
        {
        }
    }
}
