package io.rivulet.actors;

/**
 * Delivered to the failing behaviour before a restart replaces it; its return value is ignored.
 *
 * @param cause the failure.
 */
public record PreRestart(Throwable cause) implements Signal
{
}
