package io.rivulet.micrometer.observation;

/** How an observed request ended: the {@code outcome} tag. */
public enum Outcome
{
    /** Completed (a fire-and-forget handed to the engine, a reply, a stream's end). */
    SUCCESS,
    /** Ended with an error; the observation carries it. */
    ERROR,
    /** Cancelled by its subscriber before it ended (a stream taken in part, a timeout). */
    CANCELLED,
    /** Not ended yet, or the handler returned nothing to observe. */
    UNKNOWN
}
