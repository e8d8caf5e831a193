/**
 * Who may connect: the {@link io.rivulet.security.Authenticator} SPI a server runs on each SETUP, with
 * token and mutual-TLS principal implementations, and the per-address back-off every node puts in front of it
 * ({@link io.rivulet.security.ThrottledAuthenticator}). TLS itself is configured on the transport
 * ({@code io.rivulet.transport.tcp.TlsSettings}).
 */
package io.rivulet.security;
