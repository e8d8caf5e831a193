/**
 * The TCP transport: non-blocking {@code java.nio} sockets driven by the engine's duty cycle through
 * one {@link java.nio.channels.Selector} per node, carrying length-prefixed frames.
 * Everything here runs on the engine thread; nothing blocks.
 */
package io.rivulet.transport.tcp;
