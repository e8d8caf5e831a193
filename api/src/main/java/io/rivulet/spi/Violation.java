package io.rivulet.spi;

/**
 * Why a peer's frame broke the protocol. A violation closes the connection with ERROR (CONNECTION_ERROR) and
 * counts as a protocol error; the reason says which rule was broken, the detail text which frame broke it.
 */
public enum Violation
{
    /** The frame could not be decoded: too short, a length beyond the frame, a bad enum value. */
    MALFORMED_FRAME("malformed frame"),
    /** A well-formed frame that is not allowed here or now (a type the connection did not enable, a second SETUP). */
    UNEXPECTED_FRAME("unexpected frame"),
    /** A stream, subscription or request id that is in use already, or not allowed from this peer. */
    ID_IN_USE("id in use or not allowed"),
    /** A reply or update for an id this side never issued or has forgotten. */
    UNKNOWN_ID("unknown id"),
    /** A frame out of the order its exchange requires (data before its attach, a snapshot inside a snapshot). */
    OUT_OF_ORDER("out of order"),
    /** A field with a value outside what it may hold (a topic name, a pattern, an address). */
    INVALID_VALUE("invalid value"),
    /** More than a limit allows: streams, subscriptions, outstanding requests, a message's length. */
    LIMIT_EXCEEDED("limit exceeded"),
    /** Data beyond the credits this side granted. */
    CREDIT_EXCEEDED("beyond the credits granted"),
    /** The two ends' settings cannot work together (datagram window and payload, unreachable endpoint). */
    INCOMPATIBLE_SETTINGS("incompatible settings");

    private final String description;

    Violation(final String description)
    {
        this.description = description;
    }

    /** @return a short description of the rule, for counters and logs. */
    public String description()
    {
        return description;
    }
}
