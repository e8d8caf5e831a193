/**
 * The Spring Boot sample: a quote service ({@code server}) and a client service ({@code client}), two Spring Boot
 * applications over rivulet-spring-boot-starter, sharing the quote protocol ({@link io.rivulet.samples.spring.Quotes}: routes and JSON records).
 * Run both with {@code ./rivulet-spring-sample}.
 */
package io.rivulet.samples.spring;
