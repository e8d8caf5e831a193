package io.rivulet.protocol;

import io.rivulet.codec.FrameType;
import io.rivulet.spi.NodeExtension;

import java.util.List;

/** The rules for the frame types node extensions claim: known, not the core's, each claimed once. */
final class ExtensionFrameTypes
{
    /** Length of a table indexed by frame type: every template id the codec knows fits. */
    static final int TABLE_LENGTH = 64;

    private ExtensionFrameTypes()
    {
    }

    /**
     * Fails when a node's extensions cannot run together; the node checks before it starts.
     *
     * @throws IllegalArgumentException naming the extension and the frame type.
     */
    static void checkAll(final List<NodeExtension> extensions)
    {
        final boolean[] claimed = new boolean[TABLE_LENGTH];
        for (final NodeExtension extension : extensions)
        {
            claim(extension, claimed);
        }
    }

    /** @return the extension's frame types, checked against and added to those claimed so far. */
    static int[] claim(final NodeExtension extension, final boolean[] claimed)
    {
        final int[] types = extension.frameTypes();
        for (final int type : types)
        {
            if (type <= 0 || type >= TABLE_LENGTH || "UNKNOWN".equals(FrameType.name(type)))
            {
                throw new IllegalArgumentException(extension + " claims frame type " + type + ", which is unknown");
            }
            if (isCore(type))
            {
                throw new IllegalArgumentException(extension + " claims " + FrameType.name(type) +
                    ", which the connection itself handles");
            }
            if (claimed[type])
            {
                throw new IllegalArgumentException(extension + " claims " + FrameType.name(type) +
                    ", which another extension claimed already");
            }
            claimed[type] = true;
        }
        return types;
    }

    /** @return true for the frames the connection handles itself: set-up, streams, keepalive and close. */
    static boolean isCore(final int type)
    {
        switch (type)
        {
            case FrameType.SETUP:
            case FrameType.REQUEST_FNF:
            case FrameType.REQUEST_RESPONSE:
            case FrameType.REQUEST_STREAM:
            case FrameType.REQUEST_CHANNEL:
            case FrameType.REQUEST_N:
            case FrameType.CANCEL:
            case FrameType.PAYLOAD:
            case FrameType.ERROR:
            case FrameType.KEEPALIVE:
            case FrameType.CLOSE:
                return true;
            default:
                return false;
        }
    }
}
