package io.rivulet.transport.rdma.jni;

import io.rivulet.transport.rdma.verbs.VerbsException;

import java.net.Inet4Address;

/**
 * A port address as the hardware providers write it into {@link io.rivulet.transport.rdma.verbs.UdAddress#gid()}:
 * the 128-bit GID in eight groups of four hex digits, then {@code /} and the port's LID (0 on RoCE and
 * iWARP, where the GID alone routes), e.g. {@code fe80:0000:0000:0000:0202:c9ff:fe00:0001/3}.
 *
 * <p>The text comes from peers over a control channel: {@link #parse} accepts only that exact shape and
 * names what is wrong otherwise.
 *
 * @param high the GID's first eight bytes, big-endian.
 * @param low  its last eight bytes.
 * @param lid  the 16-bit local identifier, 0 when unused.
 */
public record Gid(long high, long low, int lid)
{
    private static final int GROUPS = 8;
    private static final int MAX_TEXT = 64;

    public Gid
    {
        if (lid < 0 || lid > 0xffff)
        {
            throw new IllegalArgumentException("LID out of range 0-65535: " + lid);
        }
    }

    /** @return true for a multicast GID (first byte 0xff). */
    public boolean isMulticast()
    {
        return (high >>> 56) == 0xff;
    }

    /** @return true when the GID is all zero (LID routing only). */
    public boolean isZero()
    {
        return high == 0 && low == 0;
    }

    /** @return the GID of an IPv4 address on RoCE: {@code ::ffff:a.b.c.d}. */
    public static Gid ipv4Mapped(final Inet4Address address)
    {
        final byte[] bytes = address.getAddress();
        final long ip = ((bytes[0] & 0xffL) << 24) | ((bytes[1] & 0xffL) << 16) | ((bytes[2] & 0xffL) << 8) |
            (bytes[3] & 0xffL);
        return new Gid(0, 0xffffL << 32 | ip, 0);
    }

    /** @return the text {@link #parse} reads back. */
    public String format()
    {
        final StringBuilder text = new StringBuilder(46);
        for (int group = 0; group < GROUPS; group++)
        {
            if (group > 0)
            {
                text.append(':');
            }
            final long half = group < 4 ? high : low;
            final int value = (int)(half >>> (48 - 16 * (group % 4))) & 0xffff;
            final String hex = Integer.toHexString(value);
            text.append("0000", 0, 4 - hex.length()).append(hex);
        }
        return text.append('/').append(lid).toString();
    }

    /**
     * @param text {@code <8 groups of 1-4 hex digits>[/<lid>]}.
     * @throws VerbsException naming what is malformed.
     */
    public static Gid parse(final String text) throws VerbsException
    {
        if (null == text || text.isEmpty() || text.length() > MAX_TEXT)
        {
            throw malformed(text, "expected 8 colon-separated groups of hex digits, then /LID");
        }
        final int slash = text.indexOf('/');
        final String gidText = slash < 0 ? text : text.substring(0, slash);
        int lid = 0;
        if (slash >= 0)
        {
            final String lidText = text.substring(slash + 1);
            if (lidText.isEmpty() || lidText.length() > 5 || !lidText.chars().allMatch(c -> c >= '0' && c <= '9'))
            {
                throw malformed(text, "the LID after '/' must be a decimal number 0-65535");
            }
            lid = Integer.parseInt(lidText);
            if (lid > 0xffff)
            {
                throw malformed(text, "the LID after '/' must be a decimal number 0-65535");
            }
        }
        final String[] groups = gidText.split(":", -1);
        if (groups.length != GROUPS)
        {
            throw malformed(text, "expected 8 colon-separated groups of hex digits, found " + groups.length);
        }
        long high = 0;
        long low = 0;
        for (int i = 0; i < GROUPS; i++)
        {
            final String group = groups[i];
            if (group.isEmpty() || group.length() > 4 || !group.chars().allMatch(c -> Character.digit(c, 16) >= 0))
            {
                throw malformed(text, "group " + (i + 1) + " '" + group + "' is not 1-4 hex digits");
            }
            final long value = Integer.parseInt(group, 16);
            if (i < 4)
            {
                high = high << 16 | value;
            }
            else
            {
                low = low << 16 | value;
            }
        }
        return new Gid(high, low, lid);
    }

    private static VerbsException malformed(final String text, final String why)
    {
        final String shown = null == text ? "null" : text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) + "..." : text;
        return new VerbsException("malformed UD address gid '" + shown + "': " + why +
            " (e.g. fe80:0000:0000:0000:0202:c9ff:fe00:0001/3)");
    }
}
