package io.rivulet;

/** A message exceeds the configured maximum message length. */
public class MessageTooLargeException extends RivuletException
{
    public MessageTooLargeException(final String message)
    {
        super(message);
    }
}
