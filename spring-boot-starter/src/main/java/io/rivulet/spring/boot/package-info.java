/**
 * Spring Boot auto-configuration of Rivulet: a node bound from {@code rivulet.*} properties, a server serving the
 * application's {@link io.rivulet.Acceptor} or {@link io.rivulet.Responder}, reconnecting client connections (with
 * typed requests by route), Micrometer metrics and observations, and TLS from an {@code SslBundle}. README,
 * "Spring Boot".
 */
package io.rivulet.spring.boot;
