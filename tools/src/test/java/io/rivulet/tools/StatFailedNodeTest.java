package io.rivulet.tools;

import io.rivulet.Rivulet;
import io.rivulet.RivuletException;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;
import io.rivulet.tck.FailingLayer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

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
        final FailingLayer failing = new FailingLayer();
        final Rivulet node = Rivulet.launch(new Rivulet.Context().transport(Transports.tcp())
            .threadingMode(ThreadingMode.INVOKER).nodeName("doomed").countersDirectory(directory.toString())
            .errorHandler(error -> { })
            .extension(executor -> failing));
        try
        {
            node.invoke();
            assertThat(CliRun.of("stat", "--once", "--dir", directory.toString()).out()).contains("node doomed")
                .contains("alive");

            failing.arm(new OutOfMemoryError("Java heap space (test)"));
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
}
