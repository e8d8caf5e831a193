package io.rivulet;

/**
 * The zero-copy receive path, like Aeron's {@code FragmentHandler}: called on the engine thread with
 * a {@link MessageView} whose buffers point into the engine's receive memory and are valid only
 * during the call. Copy what you keep ({@link MessageView#toMessage()}); do not block.
 */
@FunctionalInterface
public interface MessageHandler
{
    /**
     * @param message a view valid only until this method returns.
     */
    void onMessage(MessageView message);
}
