package io.rivulet;

/**
 * A configuration value is invalid; the message names the setting. One the node's {@link Rivulet.Context} refused
 * also says which setting, the value as shown and the problem, so that a layer that set it from its own properties
 * (the Spring Boot starter) can name it in its own spelling.
 */
public class ConfigurationException extends RivuletException
{
    private final String setting;
    private final String value;
    private final String problem;

    public ConfigurationException(final String message)
    {
        this(message, null, null, null);
    }

    /**
     * @param message what the user reads: where the value came from, then the problem.
     * @param setting the Context setting refused, e.g. {@code maxFrameLength}; null when not one.
     * @param value   the value as shown in the message.
     * @param problem what is wrong and what a good value looks like.
     */
    public ConfigurationException(final String message, final String setting, final String value, final String problem)
    {
        super(message);
        this.setting = setting;
        this.value = value;
        this.problem = problem;
    }

    /** @return the {@link Rivulet.Context} setting refused, or null when the error is not about one. */
    public String setting()
    {
        return setting;
    }

    /** @return the refused value as the message shows it, or null. */
    public String value()
    {
        return value;
    }

    /** @return what is wrong with the value and what a good one looks like, or null. */
    public String problem()
    {
        return problem;
    }
}
