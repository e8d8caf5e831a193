package io.rivulet;

/** A configuration value is invalid; the message names the setting. */
public class ConfigurationException extends RivuletException
{
    public ConfigurationException(final String message)
    {
        super(message);
    }
}
