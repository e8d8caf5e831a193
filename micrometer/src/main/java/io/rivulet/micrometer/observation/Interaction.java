package io.rivulet.micrometer.observation;

/** The interaction model of an observed request; its {@link #tagValue()} is the {@code rivulet.interaction} tag. */
public enum Interaction
{
    FIRE_AND_FORGET("fire_and_forget"),
    REQUEST_RESPONSE("request_response"),
    REQUEST_STREAM("request_stream"),
    REQUEST_CHANNEL("request_channel");

    private final String tagValue;

    Interaction(final String tagValue)
    {
        this.tagValue = tagValue;
    }

    /** @return the tag value, lower case with underscores. */
    public String tagValue()
    {
        return tagValue;
    }
}
