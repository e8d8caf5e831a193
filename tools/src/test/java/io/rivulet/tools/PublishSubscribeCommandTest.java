package io.rivulet.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code rivulet publish} and {@code rivulet subscribe} against each other over loopback TCP. */
class PublishSubscribeCommandTest
{
    @TempDir
    Path directory;

    @Test
    void aSubscriberReceivesEveryPublishedMessageInOrder() throws Exception
    {
        final String address = "127.0.0.1:" + freePort();
        final CompletableFuture<CliRun> publisher = CompletableFuture.supplyAsync(() -> CliRun.of("publish",
            "--bind", address, "--topic", "cli.prices", "--count", "20", "--interval", "0", "--text", "price",
            "--linger", "500", "--wait", "60", "--node-name", "cli-publisher",
            "--counters-dir", directory.toString()));
        final CliRun subscriber = subscribeWithRetry(address);
        final CliRun published = publisher.get(90, TimeUnit.SECONDS);

        assertThat(published.exitCode()).as(published.out() + published.err()).isZero();
        assertThat(published.out()).contains("published 20 message(s) on cli.prices");
        assertThat(subscriber.exitCode()).as(subscriber.out() + subscriber.err()).isZero();
        assertThat(subscriber.out())
            .contains("cli.prices #1 price 1\n")
            .contains("cli.prices #20 price 20\n")
            .contains("received 20 message(s) on cli.*");
        assertThat(subscriber.out().indexOf("#1 price 1\n")).isLessThan(subscriber.out().indexOf("#2 price 2\n"));
    }

    /** The publisher binds in another thread; retry the connection for a while. */
    private CliRun subscribeWithRetry(final String address) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true)
        {
            final CliRun run = CliRun.of("subscribe", "--connect", address, "--topic", "cli.*", "--count", "20",
                "--timeout", "60", "--node-name", "cli-subscriber",
                "--counters-dir", directory.toString());
            if (run.exitCode() == 0 || System.nanoTime() - deadline > 0 || run.out().contains("subscribed to"))
            {
                return run;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    private static int freePort() throws Exception
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }
}
