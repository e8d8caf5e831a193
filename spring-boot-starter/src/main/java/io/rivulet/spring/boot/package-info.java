/**
 * Spring Boot auto-configuration of Rivulet: a node bound from {@code rivulet.*} properties, a server serving the
 * application's {@link io.rivulet.Responder}, reconnecting client connections, Micrometer metrics and TLS from an
 * {@code SslBundle}. README, "Spring Boot".
 */
package io.rivulet.spring.boot;
