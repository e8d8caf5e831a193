package io.rivulet.tools;

import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;
import io.rivulet.codec.FrameReader;
import io.rivulet.spi.ConnectionExtension;
import io.rivulet.spi.ConnectionServices;
import io.rivulet.spi.NodeExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code rivulet stat} says DEAD, and why, for a node whose engine failed: the node wrote it in its node file, where
 * before a reader could only guess from the heartbeat's age. The node runs in INVOKER mode, stepped by the test.
 */
class StatFailedNodeTest
{
    @TempDir
    Path directory;

    @Test
    void showsANodeWhoseEngineFailedAsDeadWithTheCause()
    {
        final AtomicBoolean armed = new AtomicBoolean();
        final Rivulet node = Rivulet.launch(new Rivulet.Context().transport(Transports.tcp())
            .threadingMode(ThreadingMode.INVOKER).nodeName("doomed").countersDirectory(directory.toString())
            .errorHandler(error -> { })
            .extension(executor -> new FailingLayer(armed)));
        try
        {
            node.invoke();
            assertThat(CliRun.of("stat", "--once", "--dir", directory.toString()).out()).contains("node doomed")
                .contains("alive");

            armed.set(true);
            assertThatThrownBy(node::invoke).isInstanceOf(RivuletException.class)
                .hasMessageContaining("node failed: java.lang.OutOfMemoryError: Java heap space (test)");

            final CliRun run = CliRun.of("stat", "--once", "--dir", directory.toString());
            assertThat(run.exitCode()).isZero();
            assertThat(run.out()).contains("node doomed")
                .containsPattern("DEAD \\(the engine failed at \\d\\d:\\d\\d:\\d\\d\\.\\d{3} UTC, \\d+\\.\\d s ago: " +
                    "java\\.lang\\.OutOfMemoryError: Java heap space \\(test\\)\\)")
                .doesNotContain("alive");
        }
        finally
        {
            node.close();
        }
        assertThat(CliRun.of("stat", "--once", "--dir", directory.toString()).out())
            .as("the file is kept after close, still DEAD").contains("DEAD (the engine failed");
    }

    /** Throws an OutOfMemoryError from its node-level duty cycle once armed. */
    private record FailingLayer(AtomicBoolean armed) implements NodeExtension
    {
        @Override
        public int[] frameTypes()
        {
            return new int[0];
        }

        @Override
        public ConnectionExtension attach(final ConnectionServices connection)
        {
            return new ConnectionExtension()
            {
                @Override
                public void onFrame(final FrameReader frame, final long nowNs)
                {
                }

                @Override
                public int doWork(final long nowNs)
                {
                    return 0;
                }

                @Override
                public void onClose(final RivuletException cause)
                {
                }
            };
        }

        @Override
        public int doWork(final long nowNs)
        {
            if (armed.getAndSet(false))
            {
                throw new OutOfMemoryError("Java heap space (test)");
            }
            return 0;
        }
    }
}
