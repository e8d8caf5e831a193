package io.rivulet.actors;

import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;
import io.rivulet.tck.TestTime;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kills a remote node for real: the actors' node runs in a child JVM, which gets SIGKILL. Watchers on this
 * node must hear of it within the keepalive timeout (here the operating system closes the socket, so it is
 * much sooner; {@link RemoteActorSuite} covers a node that hangs without closing anything).
 */
class NodeKillTest
{
    /* Scaled like the slack they are checked with, so the detection bound keeps its meaning on a slow machine. */
    private static final long KEEPALIVE_INTERVAL_MS = TestTime.millis(100);
    private static final long KEEPALIVE_TIMEOUT_MS = TestTime.millis(1000);

    @Test
    void shouldNotifyWatchersWhenTheRemoteNodeIsKilled() throws Exception
    {
        final List<String> childOutput = new CopyOnWriteArrayList<>();
        final CompletableFuture<String> ready = new CompletableFuture<>();
        final Process child = startChild(childOutput, ready);
        try (Rivulet node = Rivulet.launch(new Rivulet.Context()
                .transport(Transports.tcp())
                .threadingMode(ThreadingMode.SHARED)
                .keepaliveInterval(KEEPALIVE_INTERVAL_MS, TimeUnit.MILLISECONDS)
                .keepaliveTimeout(KEEPALIVE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .errorHandler(error -> { }));
             ActorSystem actors = ActorSystem.launch(node, TestMessages.context().errorHandler(error -> { })))
        {
            final String address = ready.get(TestTime.millis(60, TimeUnit.SECONDS), TimeUnit.MILLISECONDS);
            final ActorRef<String> victim = actors.lookup("rivulet://" + address + "/victim", String.class);
            assertThat(victim.ask("ping", String.class, RemoteActorSuite.ASK_TIMEOUT).block()).isEqualTo("ping");
            final CompletableFuture<Terminated> watch = actors.watch(victim).toFuture();
            final CompletableFuture<Terminated> actorWatch = new CompletableFuture<>();
            actors.spawn("watcher", Behaviors.<String>setup(context ->
            {
                context.watch(victim);
                return Behaviors.receive((ctx, message) ->
                {
                    ctx.reply("watching");
                    return Behaviors.same();
                }, (ctx, signal) ->
                {
                    actorWatch.complete((Terminated)signal);
                    return Behaviors.same();
                });
            })).ask("ready?", String.class, RemoteActorSuite.ASK_TIMEOUT).block();

            final long killedAtNs = System.nanoTime();
            child.destroyForcibly();

            final Terminated terminated = watch.get(TestTime.millis(30, TimeUnit.SECONDS), TimeUnit.MILLISECONDS);
            final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAtNs);
            System.out.printf(Locale.ROOT, "watchers notified %d ms after the remote node was killed " +
                "(keepalive timeout %d ms)%n", detectedMs, KEEPALIVE_TIMEOUT_MS);
            assertThat(terminated.reason()).isEqualTo(Terminated.Reason.UNREACHABLE);
            assertThat(terminated.path()).isEqualTo(victim.path());
            assertThat(detectedMs).isLessThanOrEqualTo(KEEPALIVE_TIMEOUT_MS + KEEPALIVE_INTERVAL_MS +
                RemoteActorSuite.SCHEDULING_SLACK_MS);
            assertThat(actorWatch.get(TestTime.millis(30, TimeUnit.SECONDS), TimeUnit.MILLISECONDS).reason()).isEqualTo(Terminated.Reason.UNREACHABLE);
        }
        finally
        {
            child.destroyForcibly();
            child.waitFor(TestTime.millis(10, TimeUnit.SECONDS), TimeUnit.MILLISECONDS);
        }
    }

    private static Process startChild(final List<String> output, final CompletableFuture<String> ready)
        throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        final List<String> jvmArguments = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < jvmArguments.size(); i++)
        {
            final String argument = jvmArguments.get(i);
            if (argument.startsWith("--add-opens") || argument.startsWith("--add-exports"))
            {
                command.add(argument);
                if (!argument.contains("=") && i + 1 < jvmArguments.size())
                {
                    command.add(jvmArguments.get(++i));
                }
            }
        }
        command.add("-Xmx256m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(RemoteNodeMain.class.getName());
        command.add("tcp");
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        final Thread reader = new Thread(() ->
        {
            try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = lines.readLine()) != null)
                {
                    output.add(line);
                    if (line.startsWith("READY "))
                    {
                        ready.complete(line.substring("READY ".length()).trim());
                    }
                }
            }
            catch (final Exception ignore)
            {
                // the child is gone
            }
            ready.completeExceptionally(new IllegalStateException("the child node exited without READY: " + output));
        }, "child-output");
        reader.setDaemon(true);
        reader.start();
        return child;
    }
}
