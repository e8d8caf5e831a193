/**
 * Interceptors: what wraps every connection of a node, on the requesting side (the {@link io.rivulet.Connection}
 * the application gets from {@code connect}) and on the responding side (the {@link io.rivulet.Responder} each
 * connection serves), for observation, tracing or policy, registered with
 * {@code Rivulet.Context.interceptor(...)}.
 */
package io.rivulet.interceptor;
