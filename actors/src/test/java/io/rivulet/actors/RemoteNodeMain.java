package io.rivulet.actors;

import io.rivulet.Rivulet;
import io.rivulet.ThreadingMode;
import io.rivulet.Transports;

import java.io.IOException;

/**
 * A node in its own process for {@link NodeKillTest}: binds an actor system on 127.0.0.1, spawns an echo
 * actor named "victim", prints {@code READY <address>}, and lives until its standard input closes (or it is
 * killed).
 */
public final class RemoteNodeMain
{
    private RemoteNodeMain()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        try (Rivulet node = Rivulet.launch(new Rivulet.Context()
                .transport(Transports.byName(args.length > 0 ? args[0] : "tcp"))
                .threadingMode(ThreadingMode.SHARED));
             ActorSystem actors = ActorSystem.launch(node, TestMessages.context().bindAddress("127.0.0.1:0")))
        {
            actors.spawn("victim", (context, message) ->
            {
                context.reply(message);
                return Behaviors.same();
            });
            System.out.println("READY " + actors.address());
            System.out.flush();
            while (System.in.read() != -1)
            {
                // until the parent goes away
            }
        }
    }
}
