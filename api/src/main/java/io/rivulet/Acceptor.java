package io.rivulet;

/**
 * Decides, for each connection a server accepts, which {@link Responder} serves it, from what the client sent in
 * SETUP and who it is, as RSocket's {@code SocketAcceptor} does; or refuses it.
 *
 * <pre>{@code
 * node.bind("0.0.0.0:7070", (setup, connection) ->
 * {
 *     String tenant = setup.metadata().get("tenant");
 *     if (tenant == null)
 *     {
 *         throw new RejectedException("no tenant in SETUP");
 *     }
 *     return Router.builder()
 *         .requestResponse("hello", String.class, name -> connection.route("whoami").requestResponse(name, String.class))
 *         .build();
 * });
 * }</pre>
 *
 * <p>Runs on the node's conductor thread once per connection, after SETUP was validated and the
 * {@link io.rivulet.security.Authenticator} accepted it, and before any request on the connection is served (a request
 * is read only after its SETUP was): like an authenticator it must be quick and must not block.
 *
 * <p>To refuse, throw {@link RejectedException} with the reason: the client gets ERROR (REJECTED_SETUP) with it, its
 * {@code connect} fails with a {@link RejectedException} carrying it, and the node counts a rejected setup. An acceptor
 * that throws anything else, or returns null, refuses too, with a generic reason; the node's error handler gets the
 * exception.
 *
 * <p>The {@link Connection} handed in is the server's side of the new connection: the responder's handlers can keep
 * it and call the client back, whose own responder (given to {@code connect}) serves those requests.
 */
@FunctionalInterface
public interface Acceptor
{
    /**
     * @param setup      what the client sent and who it is.
     * @param connection the server's side of the connection.
     * @return the responder that serves the connection.
     * @throws RejectedException to refuse the connection with a reason.
     */
    Responder accept(ConnectionSetup setup, Connection connection);

    /**
     * @param responder serves every connection.
     * @return an acceptor that accepts every connection with that responder.
     */
    static Acceptor of(final Responder responder)
    {
        return (setup, connection) -> responder;
    }
}
