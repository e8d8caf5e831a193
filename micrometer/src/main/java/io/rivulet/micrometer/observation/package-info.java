/**
 * Micrometer {@code Observation}s of a node's requests, both sides, with the W3C trace context carried in each
 * request's composite metadata: {@link io.rivulet.micrometer.observation.RivuletObservations#interceptor}.
 */
package io.rivulet.micrometer.observation;
