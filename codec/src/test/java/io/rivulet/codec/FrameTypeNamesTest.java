package io.rivulet.codec;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link FrameType#name(int)} names every message of the schema after its constant, and nothing else. */
class FrameTypeNamesTest
{
    private static final String SCHEMA = "/sbe/rivulet-protocol.xml";
    private static final Pattern MESSAGE = Pattern.compile("<sbe:message\\s+name=\"(\\w+)\"\\s+id=\"(\\d+)\"");

    @Test
    void shouldNameEverySchemaMessageInUpperSnakeCase() throws IOException
    {
        final Map<Integer, String> expected = schemaMessageNames();
        assertThat(expected).as("messages in %s", SCHEMA).hasSizeGreaterThanOrEqualTo(27);

        final Map<Integer, String> actual = new TreeMap<>();
        for (final int id : expected.keySet())
        {
            actual.put(id, FrameType.name(id));
        }
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void shouldCallEveryOtherIdUnknown() throws IOException
    {
        final Map<Integer, String> messages = schemaMessageNames();
        for (int id = -1; id <= 0xFFFF + 1; id++)
        {
            if (!messages.containsKey(id))
            {
                assertThat(FrameType.name(id)).as("id %d", id).isEqualTo("UNKNOWN");
            }
        }
    }

    /** Template id to message name, {@code RegionOpResult} as {@code REGION_OP_RESULT}. */
    private static Map<Integer, String> schemaMessageNames() throws IOException
    {
        final String schema;
        try (InputStream in = FrameTypeNamesTest.class.getResourceAsStream(SCHEMA))
        {
            assertThat(in).as(SCHEMA).isNotNull();
            schema = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        final Map<Integer, String> names = new TreeMap<>();
        final Matcher message = MESSAGE.matcher(schema);
        while (message.find())
        {
            final String upperSnake = message.group(1).replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase();
            names.put(Integer.parseInt(message.group(2)), upperSnake);
        }
        return names;
    }
}
