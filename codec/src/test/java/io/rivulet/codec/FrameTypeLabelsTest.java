package io.rivulet.codec;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Frames are decoded by name: a {@code switch} on frame types uses the {@link FrameType} constants, never the
 * numeric template ids, so that the schema stays the one place that numbers frames. This test scans the main
 * sources of every module and reports each integer literal used as a {@code case} label in a file that deals
 * with frame types (it refers to {@code FrameType} or is in the codec package).
 */
class FrameTypeLabelsTest
{
    /** Fewer main sources than this means the scan looked in the wrong place and would pass vacuously. */
    private static final int MIN_SOURCE_FILES = 100;
    private static final Pattern CASE_LABELS = Pattern.compile("\\bcase\\b([^:]*?)(?::|->)");
    private static final Pattern INTEGER_LITERAL =
        Pattern.compile("-?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|[0-9][0-9_]*)[lL]?");
    private static final Pattern REFERS_TO_FRAME_TYPE = Pattern.compile("\\bFrameType\\b");
    private static final Pattern CODEC_PACKAGE = Pattern.compile("\\bpackage\\s+io\\.rivulet\\.codec\\s*;");

    @Test
    void shouldUseFrameTypeConstantsAsCaseLabelsInEveryMainSource() throws IOException
    {
        final Path root = repositoryRoot();
        final List<Path> sources = mainSources(root);

        assertThat(sources).as("main sources under %s", root).hasSizeGreaterThanOrEqualTo(MIN_SOURCE_FILES);
        assertThat(sources).as("main sources under %s", root)
            .anyMatch(path -> path.endsWith(Paths.get("codec/src/main/java/io/rivulet/codec/FrameReader.java")));

        final List<String> violations = new ArrayList<>();
        for (final Path source : sources)
        {
            final String text = Files.readString(source, StandardCharsets.UTF_8);
            violations.addAll(numericCaseLabels(root.relativize(source).toString(), text));
        }
        assertThat(violations)
            .as("numeric case labels on frame types: switch on the FrameType constants instead")
            .isEmpty();
    }

    @Test
    void shouldReportANumericCaseLabel()
    {
        final String source = String.join("\n",
            "import io.rivulet.codec.FrameType;",
            "class Endpoint",
            "{",
            "    String onFrame(final int type)",
            "    {",
            "        switch (type)",
            "        {",
            "            case 12: return \"data\";",
            "            case FrameType.SUBSCRIBE: return \"subscribe\";",
            "            case 0x0E: return \"unsubscribe\";",
            "            default: return null;",
            "        }",
            "    }",
            "}");

        assertThat(numericCaseLabels("Endpoint.java", source))
            .containsExactly("Endpoint.java:8: case 12", "Endpoint.java:10: case 0x0E");
    }

    @Test
    void shouldReportNumericLabelsOfArrowAndMultiLabelCases()
    {
        final String source = String.join("\n",
            "class Endpoint",
            "{",
            "    int kind(final int type)",
            "    {",
            "        return switch (type)",
            "        {",
            "            case FrameType.TOPIC_DATA, 13 -> 1;",
            "            case 21 -> flag ? 2 : 3;",
            "            default -> 0;",
            "        };",
            "    }",
            "}");

        assertThat(numericCaseLabels("Endpoint.java", source))
            .containsExactly("Endpoint.java:7: case 13", "Endpoint.java:8: case 21");
    }

    @Test
    void shouldAcceptNamedLabelsCommentsAndStrings()
    {
        final String source = String.join("\n",
            "package io.rivulet.codec;",
            "/* A block comment: case 1: used to be here,",
            "   case 2: too. */",
            "class Reader",
            "{",
            "    String name(final int type)",
            "    {",
            "        switch (type) // case 3",
            "        {",
            "            case FrameType.TOPIC_DATA: return \"case 4: is not a label\";",
            "            case FrameType.SETUP: return \"\\\"case 5:\";",
            "            case FrameType.CLOSE: return String.valueOf('5');",
            "            case REGION_OP_READ: return \"\"\"",
            "                case 6:",
            "                \"\"\";",
            "            default: return null; // case 7",
            "        }",
            "    }",
            "}");

        assertThat(numericCaseLabels("Reader.java", source)).isEmpty();
    }

    @Test
    void shouldLeaveFilesThatDoNotDealWithFrameTypesAlone()
    {
        final String source = String.join("\n",
            "package io.rivulet.other;",
            "class Retry",
            "{",
            "    long backOff(final int attempt)",
            "    {",
            "        switch (attempt)",
            "        {",
            "            case 1: return 10;",
            "            default: return 100;",
            "        }",
            "    }",
            "}");

        assertThat(numericCaseLabels("Retry.java", source)).isEmpty();
        assertThat(numericCaseLabels("Retry.java", source.replace("package io.rivulet.other;",
            "package io.rivulet.codec;"))).containsExactly("Retry.java:8: case 1");
    }

    /**
     * Integer literals used as {@code case} labels in a source that deals with frame types.
     *
     * @param fileName for the report.
     * @param source   Java source text.
     * @return one {@code file:line: case N} entry per numeric label, in source order.
     */
    static List<String> numericCaseLabels(final String fileName, final String source)
    {
        final String code = withoutCommentsAndLiterals(source);
        final List<String> violations = new ArrayList<>();
        if (!REFERS_TO_FRAME_TYPE.matcher(code).find() && !CODEC_PACKAGE.matcher(code).find())
        {
            return violations;
        }
        final Matcher labels = CASE_LABELS.matcher(code);
        while (labels.find())
        {
            for (final String label : labels.group(1).split(","))
            {
                final String literal = label.replaceAll("[\\s()]", "");
                if (INTEGER_LITERAL.matcher(literal).matches())
                {
                    violations.add(fileName + ":" + lineOf(code, labels.start()) + ": case " + literal);
                }
            }
        }
        return violations;
    }

    /**
     * Blanks comments and the contents of string, text block and char literals, keeping line breaks so that line
     * numbers still match the source.
     */
    static String withoutCommentsAndLiterals(final String source)
    {
        final StringBuilder code = new StringBuilder(source.length());
        final int length = source.length();
        int i = 0;
        while (i < length)
        {
            final char c = source.charAt(i);
            final char next = i + 1 < length ? source.charAt(i + 1) : '\0';
            if (c == '/' && next == '/')
            {
                final int end = indexOrEnd(source, "\n", i);
                i = blank(source, i, end, code);
            }
            else if (c == '/' && next == '*')
            {
                final int close = source.indexOf("*/", i + 2);
                i = blank(source, i, close < 0 ? length : close + 2, code);
            }
            else if (source.startsWith("\"\"\"", i))
            {
                code.append("\"\"\"");
                final int end = literalEnd(source, i + 3, "\"\"\"");
                i = blank(source, i + 3, end, code);
                code.append(source, i, Math.min(i + 3, length));
                i = Math.min(i + 3, length);
            }
            else if (c == '"' || c == '\'')
            {
                code.append(c);
                final int end = literalEnd(source, i + 1, String.valueOf(c));
                i = blank(source, i + 1, end, code);
                if (i < length)
                {
                    code.append(source.charAt(i));
                    i++;
                }
            }
            else
            {
                code.append(c);
                i++;
            }
        }
        return code.toString();
    }

    /** @return the index of the closing delimiter, skipping escaped characters, or the end of the source. */
    private static int literalEnd(final String source, final int from, final String delimiter)
    {
        int i = from;
        while (i < source.length() && !source.startsWith(delimiter, i))
        {
            i += source.charAt(i) == '\\' ? 2 : 1;
        }
        return Math.min(i, source.length());
    }

    private static int indexOrEnd(final String source, final String text, final int from)
    {
        final int index = source.indexOf(text, from);
        return index < 0 ? source.length() : index;
    }

    /** Appends spaces for {@code source[from, to)}, but its line breaks; @return {@code to}. */
    private static int blank(final String source, final int from, final int to, final StringBuilder code)
    {
        for (int i = from; i < to; i++)
        {
            code.append(source.charAt(i) == '\n' ? '\n' : ' ');
        }
        return to;
    }

    private static int lineOf(final String code, final int index)
    {
        int line = 1;
        for (int i = 0; i < index; i++)
        {
            if (code.charAt(i) == '\n')
            {
                line++;
            }
        }
        return line;
    }

    /** The directory whose pom.xml lists the codec module, found upwards from where the build runs. */
    private static Path repositoryRoot() throws IOException
    {
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        while (dir != null)
        {
            final Path pom = dir.resolve("pom.xml");
            if (Files.isRegularFile(pom) &&
                Files.readString(pom, StandardCharsets.UTF_8).contains("<module>codec</module>"))
            {
                return dir;
            }
            dir = dir.getParent();
        }
        throw new AssertionError("no parent pom.xml listing <module>codec</module> above " +
            System.getProperty("user.dir"));
    }

    /** Every .java file under a src/main/java directory of any module; build output and hidden trees skipped. */
    private static List<Path> mainSources(final Path root) throws IOException
    {
        final List<Path> sources = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult preVisitDirectory(final Path dir, final BasicFileAttributes attributes)
            {
                final String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                final boolean skip = !dir.equals(root) &&
                    (name.equals("target") || name.equals("node_modules") || name.startsWith("."));
                return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attributes)
            {
                if (file.toString().endsWith(".java") && isUnderMainJava(root.relativize(file)))
                {
                    sources.add(file);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(final Path file, final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
        });
        return sources;
    }

    private static boolean isUnderMainJava(final Path relative)
    {
        for (int i = 0; i + 2 < relative.getNameCount(); i++)
        {
            if (relative.getName(i).toString().equals("src") && relative.getName(i + 1).toString().equals("main") &&
                relative.getName(i + 2).toString().equals("java"))
            {
                return true;
            }
        }
        return false;
    }
}
