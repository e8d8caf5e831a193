package io.rivulet.tck;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Runs a JUnit test class (or a main class) in a child JVM inside a network namespace of its own, so that a test may
 * use multicast, routes, queueing disciplines or interfaces of its own making without touching the host's network.
 * The namespace starts with only a loopback interface, down; {@link #BASE_SETUP} brings it up with multicast on and a
 * route for 224.0.0.0/4, and a caller may add commands (a veth pair, a {@code tc} qdisc) run before the JVM starts.
 *
 * <p>How: {@code unshare -n} when this process may (root, as CI runs), else {@code unshare -rn} (a user namespace
 * too, when the kernel lets unprivileged users make them), else the calling test is skipped with an assumption that
 * says what is missing. The child runs {@code sh -c '<setup>; exec java ...'} with this JVM's class path, its
 * {@code --add-opens}/{@code --add-exports} and heap flags (the surefire argLine), the {@code rivulet.*} and
 * {@code junit.*} system properties, and {@link #INSIDE_PROPERTY} set. A test class runs through the JUnit Platform
 * Launcher ({@link Child}); each result is printed with its stack trace on the child's output, and the exit status is
 * 0 only when no test failed and at least one passed. The child is killed (with its descendants) when it outlives its
 * timeout.
 *
 * <p>A class meant to run inside calls {@link #assumeInside()} first (in {@code @BeforeAll} or each test), so that a
 * plain test run, which may pick it up, skips it rather than use the host's interfaces. Make such classes nested
 * classes of the test that runs them (surefire does not run nested classes by itself).
 *
 * <p>Thread-safe: stateless apart from the cached probe of what this machine supports.
 */
public final class NetworkNamespace
{
    /** Set to {@code true} in the child JVM, inside the namespace. */
    public static final String INSIDE_PROPERTY = "rivulet.test.networkNamespace";
    /** Brings loopback up with multicast, and routes IPv4 multicast through it. */
    public static final List<String> BASE_SETUP = List.of(
        "ip link set lo up", "ip link set lo multicast on", "ip route add 224.0.0.0/4 dev lo");
    /** Exit status of {@link Child} when a test failed. */
    public static final int FAILED = 1;
    /** Exit status of {@link Child} when no test passed (none found, or every one skipped). */
    public static final int NOTHING_PASSED = 3;
    /** Exit status of {@link Child} when the launcher itself failed. */
    public static final int LAUNCHER_FAILED = 4;

    private static final int MAX_OUTPUT_CHARS = 1 << 20;
    private static final long PROBE_TIMEOUT_MS = 10_000;
    private static volatile Support support;

    private NetworkNamespace()
    {
    }

    /**
     * What this machine offers.
     *
     * @param unshare the command that makes a namespace (with its flags), or null.
     * @param missing why there is none, or null.
     */
    public record Support(List<String> unshare, String missing)
    {
        /** @return whether namespaces can be made here. */
        public boolean available()
        {
            return null != unshare;
        }
    }

    /**
     * What a child run gave.
     *
     * @param exitStatus the child's exit status, or -1 when it was killed at its timeout.
     * @param output     its standard output and error, interleaved (cut at a megabyte).
     * @param timedOut   whether it outlived its timeout.
     */
    public record Result(int exitStatus, String output, boolean timedOut)
    {
        /** @return whether it ended by itself with status 0. */
        public boolean passed()
        {
            return !timedOut && exitStatus == 0;
        }

        /** @return a description for an assertion message: how it ended, then its output. */
        public String describe()
        {
            return (timedOut ? "timed out and was killed" : "exited with status " + exitStatus) + "; output:\n" + output;
        }
    }

    /** @return whether this JVM runs inside a namespace {@link NetworkNamespace} made. */
    public static boolean isInside()
    {
        return Boolean.getBoolean(INSIDE_PROPERTY);
    }

    /** Skips the calling test unless it runs inside a namespace {@link NetworkNamespace} made. */
    public static void assumeInside()
    {
        assumeTrue(isInside(), "runs only inside a network namespace of its own (NetworkNamespace sets " +
            INSIDE_PROPERTY + "), never on this host's interfaces: its outer test runs it there");
    }

    /**
     * @return how namespaces are made here, probed once ({@code ip} and {@code unshare} present, and
     *         {@code unshare -n} or {@code unshare -rn} allowed).
     */
    public static Support support()
    {
        Support probed = support;
        if (null == probed)
        {
            probed = probe();
            support = probed;
        }
        return probed;
    }

    /** Skips the calling test, saying what is missing, when namespaces cannot be made here. */
    public static void assumeAvailable()
    {
        final Support probed = support();
        assumeTrue(probed.available(), () -> "network namespaces unavailable here: " + probed.missing());
    }

    /**
     * Runs every test of {@code testClass} in a child JVM inside a new network namespace, after {@link #BASE_SETUP}
     * and {@code setup}; skips the caller when namespaces cannot be made here.
     *
     * @param testClass a class whose tests call {@link #assumeInside()}.
     * @param setup     shell commands run as the namespace's root before the JVM starts (e.g.
     *                  {@code ip link add v0 type veth peer name v1}); any failing one fails the run.
     * @param timeout   longest run, already scaled by the caller where it should be; then the child is killed.
     * @return how it ended, with its output (also printed on this JVM's standard output).
     */
    public static Result runTests(final Class<?> testClass, final List<String> setup, final Duration timeout)
        throws IOException, InterruptedException
    {
        return run(Child.class.getName(), List.of(testClass.getName()), setup, timeout);
    }

    /**
     * Runs {@code mainClass} in a child JVM inside a new network namespace, after {@link #BASE_SETUP} and
     * {@code setup}; skips the caller when namespaces cannot be made here.
     *
     * @param mainClass has a {@code main(String[])}.
     * @param arguments given to it.
     * @param setup     shell commands run before the JVM starts.
     * @param timeout   longest run; then the child is killed.
     * @return how it ended, with its output (also printed on this JVM's standard output).
     */
    public static Result runMain(final Class<?> mainClass, final List<String> arguments, final List<String> setup,
        final Duration timeout) throws IOException, InterruptedException
    {
        return run(mainClass.getName(), arguments, setup, timeout);
    }

    private static Result run(final String mainClass, final List<String> arguments, final List<String> setup,
        final Duration timeout) throws IOException, InterruptedException
    {
        assumeAvailable();
        final Path argumentFile = Files.createTempFile("rivulet-netns-", ".args");
        try
        {
            Files.writeString(argumentFile, argumentFileText(mainClass, arguments), StandardCharsets.UTF_8);
            final List<String> setupCommands = new ArrayList<>(BASE_SETUP);
            setupCommands.addAll(setup);
            final List<String> command = new ArrayList<>(support().unshare());
            command.add("--");
            command.add("sh");
            command.add("-c");
            // sbin is where ip lives, and often not on a user's PATH; set -e: a failed setup step fails the run.
            command.add("set -e; PATH=\"$PATH:/usr/sbin:/sbin\"; " + String.join("; ", setupCommands) +
                "; exec \"$@\"");
            command.add("sh");
            command.add(javaExecutable());
            command.add("@" + argumentFile);
            final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            final StringBuilder output = new StringBuilder();
            final Thread reader = new Thread(() -> collect(child.getInputStream(), output),
                "network-namespace-output-" + child.pid());
            reader.setDaemon(true);
            reader.start();
            final boolean ended = child.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended)
            {
                child.descendants().forEach(ProcessHandle::destroyForcibly);
                child.destroyForcibly();
                child.waitFor(PROBE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
            reader.join(PROBE_TIMEOUT_MS);
            final String text;
            synchronized (output)
            {
                text = output.toString();
            }
            final Result result = new Result(ended ? child.exitValue() : -1, text, !ended);
            System.out.println("== " + mainClass + " " + arguments + " in a network namespace (" +
                String.join(" ", support().unshare()) + "): " +
                (result.timedOut() ? "timed out after " + timeout.toMillis() + " ms" : "exit " + result.exitStatus()));
            System.out.println(text);
            return result;
        }
        finally
        {
            Files.deleteIfExists(argumentFile);
        }
    }

    /** The child's JVM flags, class path, system properties and main class, one quoted argument a line. */
    private static String argumentFileText(final String mainClass, final List<String> arguments)
    {
        final List<String> lines = new ArrayList<>(jvmFlags());
        for (final Map.Entry<Object, Object> property : System.getProperties().entrySet())
        {
            final String name = String.valueOf(property.getKey());
            if ((name.startsWith("rivulet.") || name.startsWith("junit.")) && !name.equals(INSIDE_PROPERTY))
            {
                lines.add("-D" + name + "=" + property.getValue());
            }
        }
        lines.add("-D" + INSIDE_PROPERTY + "=true");
        lines.add("-cp");
        lines.add(System.getProperty("java.class.path"));
        lines.add(mainClass);
        lines.addAll(arguments);
        final StringBuilder text = new StringBuilder();
        for (final String line : lines)
        {
            text.append('"').append(line.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"\n");
        }
        return text.toString();
    }

    /** @return the flags of this JVM's command line a test JVM needs again: module access, heap and VM options. */
    static List<String> jvmFlags()
    {
        final List<String> flags = new ArrayList<>();
        final List<String> input = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < input.size(); i++)
        {
            final String argument = input.get(i);
            if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports") ||
                argument.startsWith("--add-modules") || argument.startsWith("--enable-native-access"))
            {
                flags.add(argument);
                if (!argument.contains("=") && i + 1 < input.size())
                {
                    flags.add(input.get(++i));
                }
            }
            else if (argument.startsWith("-Xmx") || argument.startsWith("-Xms") || argument.startsWith("-Xss") ||
                argument.startsWith("-XX:"))
            {
                flags.add(argument);
            }
        }
        return flags;
    }

    private static String javaExecutable()
    {
        return ProcessHandle.current().info().command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    private static void collect(final InputStream in, final StringBuilder output)
    {
        final byte[] chunk = new byte[8192];
        try (in)
        {
            int read;
            while ((read = in.read(chunk)) >= 0)
            {
                synchronized (output)
                {
                    if (output.length() < MAX_OUTPUT_CHARS)
                    {
                        output.append(new String(chunk, 0, read, StandardCharsets.UTF_8));
                    }
                }
            }
        }
        catch (final IOException ex)
        {
            synchronized (output)
            {
                output.append("\n[reading the child's output failed: ").append(ex).append("]\n");
            }
        }
    }

    private static Support probe()
    {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux"))
        {
            return new Support(null, "network namespaces are Linux's; this is " + System.getProperty("os.name"));
        }
        final String unshare = executable("unshare");
        final String ip = executable("ip");
        if (null == unshare || null == ip)
        {
            return new Support(null, (null == unshare ? "unshare (util-linux) " : "") +
                (null == ip ? "ip (iproute2) " : "") + "not installed");
        }
        final List<List<String>> candidates = new ArrayList<>();
        if (isRoot())
        {
            candidates.add(List.of(unshare, "-n"));
        }
        candidates.add(List.of(unshare, "-r", "-n"));
        final StringBuilder why = new StringBuilder();
        for (final List<String> candidate : candidates)
        {
            final List<String> command = new ArrayList<>(candidate);
            command.add("--");
            command.add(ip);
            command.add("link");
            command.add("set");
            command.add("lo");
            command.add("up");
            final String failure = tryRun(command);
            if (null == failure)
            {
                return new Support(List.copyOf(candidate), null);
            }
            why.append(why.length() == 0 ? "" : "; ").append(String.join(" ", candidate)).append(": ").append(failure);
        }
        return new Support(null, why + (isRoot() ? "" : " (not root, and the kernel or container forbids " +
            "unprivileged user namespaces: kernel.unprivileged_userns_clone, user.max_user_namespaces)"));
    }

    /** @return null when the command exits 0 in time, else why not. */
    private static String tryRun(final List<String> command)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final Thread reader = new Thread(() ->
            {
                try (InputStream in = process.getInputStream())
                {
                    in.transferTo(out);
                }
                catch (final IOException ignore)
                {
                    // what was read so far is the reason shown
                }
            }, "network-namespace-probe");
            reader.setDaemon(true);
            reader.start();
            if (!process.waitFor(PROBE_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                return "did not finish in " + PROBE_TIMEOUT_MS + " ms";
            }
            reader.join(PROBE_TIMEOUT_MS);
            return process.exitValue() == 0 ? null : "exit " + process.exitValue() + " (" +
                out.toString(StandardCharsets.UTF_8).strip() + ")";
        }
        catch (final IOException ex)
        {
            return ex.getMessage();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static String executable(final String name)
    {
        final List<String> directories = new ArrayList<>(List.of(
            Objects.requireNonNullElse(System.getenv("PATH"), "").split(java.io.File.pathSeparator)));
        directories.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        for (final String directory : directories)
        {
            if (!directory.isEmpty())
            {
                final Path candidate = Path.of(directory, name);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate))
                {
                    return candidate.toString();
                }
            }
        }
        return null;
    }

    private static boolean isRoot()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Uid:"))
                {
                    final String[] ids = line.substring(4).trim().split("\\s+");
                    return ids.length > 1 && ids[1].equals("0"); // the effective uid
                }
            }
        }
        catch (final IOException ignore)
        {
            // not Linux as expected: try the user namespace
        }
        return false;
    }

    /**
     * The child JVM's main: runs one test class through the JUnit Platform Launcher, prints each test's result (a
     * failure with its stack trace) and a summary, and exits 0 when none failed and at least one passed,
     * {@link #FAILED}, {@link #NOTHING_PASSED} or {@link #LAUNCHER_FAILED} otherwise.
     */
    public static final class Child
    {
        private Child()
        {
        }

        /**
         * @param arguments the test class's name.
         */
        public static void main(final String[] arguments)
        {
            final PrintStream out = System.out;
            int status;
            try
            {
                status = runClass(arguments[0], out);
            }
            catch (final Throwable ex)
            {
                out.println("the launcher failed:");
                ex.printStackTrace(out);
                status = LAUNCHER_FAILED;
            }
            out.flush();
            System.exit(status); // engine or node threads a test left behind must not keep the child alive
        }

        private static int runClass(final String className, final PrintStream out) throws ClassNotFoundException
        {
            final Class<?> testClass = Class.forName(className);
            final LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(testClass)).build();
            final Launcher launcher = LauncherFactory.create();
            final SummaryGeneratingListener summary = new SummaryGeneratingListener();
            launcher.execute(request, summary, new Printer(out));
            final TestExecutionSummary result = summary.getSummary();
            final StringWriter text = new StringWriter();
            result.printTo(new PrintWriter(text));
            out.println(text);
            if (result.getTotalFailureCount() > 0)
            {
                return FAILED;
            }
            return result.getTestsSucceededCount() > 0 ? 0 : NOTHING_PASSED;
        }
    }

    /** Prints each test as it ends: passed, skipped (why), aborted (why) or failed (the stack trace). */
    private static final class Printer implements TestExecutionListener
    {
        private final PrintStream out;

        Printer(final PrintStream out)
        {
            this.out = out;
        }

        @Override
        public void testPlanExecutionStarted(final TestPlan testPlan)
        {
            out.println("-- tests inside the namespace (" + INSIDE_PROPERTY + "=" + isInside() + ")");
        }

        @Override
        public void executionSkipped(final TestIdentifier test, final String reason)
        {
            out.println("SKIPPED " + test.getDisplayName() + ": " + reason);
        }

        @Override
        public void executionFinished(final TestIdentifier test, final TestExecutionResult result)
        {
            if (!test.isTest() && result.getStatus() == TestExecutionResult.Status.SUCCESSFUL)
            {
                return;
            }
            out.println(result.getStatus() + " " + (test.isTest() ? "" : "(container) ") + test.getDisplayName() +
                " [" + test.getUniqueId() + "]");
            result.getThrowable().ifPresent(failure -> failure.printStackTrace(out));
            out.flush();
        }
    }
}
