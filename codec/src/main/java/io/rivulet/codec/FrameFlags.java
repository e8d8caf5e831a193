package io.rivulet.codec;

/**
 * Bits of the {@code FrameFlags} set carried by request and payload frames (see the schema).
 * Plain byte constants so that hot paths combine them without touching a flyweight.
 */
public final class FrameFlags
{
    /** More fragments of the same message follow. */
    public static final byte FOLLOWS = 1;
    /** The sender's side of the stream completes with this frame. */
    public static final byte COMPLETE = 1 << 1;
    /** The frame carries a message (an {@code onNext}). */
    public static final byte NEXT = 1 << 2;

    private FrameFlags()
    {
    }

    public static boolean isSet(final byte flags, final byte bit)
    {
        return (flags & bit) != 0;
    }
}
