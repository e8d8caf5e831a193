package io.rivulet.bench.aeron;

import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.rivulet.bench.harness.BenchServer;
import io.rivulet.bench.harness.ServerMain;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Aeron's serving process for UDP: runs the host's media driver (the client process connects to it through
 * {@code dir}, as Aeron is deployed: one driver per host), subscribes on 127.0.0.1:{@code port} and
 * publishes replies to 127.0.0.1:{@code port2}, where the client subscribes. Messages cross the loopback
 * interface as UDP datagrams, sent by the driver's sender and received by its receiver.
 */
public final class AeronServerMain implements BenchServer
{
    private final AeronNode.Options options;
    private AeronNode node;
    private Pong pong;
    private Thread thread;

    AeronServerMain(final AeronNode.Options options)
    {
        this.options = options;
    }

    /** Serves until standard input closes; {@code --help} lists the options. */
    public static void main(final String[] argv)
    {
        ServerMain.run(argv, new AeronNode.Options(), AeronServerMain::new);
    }

    @Override
    public Map<String, Object> start() throws IOException
    {
        final int pingPort = freeUdpPort();
        int pongPort = freeUdpPort();
        while (pongPort == pingPort)
        {
            pongPort = freeUdpPort();
        }
        node = new AeronNode(options, "server");
        final Subscription subscription = node.aeron.addSubscription(udp(pingPort), AeronNode.PING_STREAM);
        final ExclusivePublication publication = node.aeron.addExclusivePublication(udp(pongPort), AeronNode.PONG_STREAM);
        pong = new Pong(subscription, publication, AeronNode.idleStrategy(options.idle));
        thread = new Thread(pong, "aeron-pong");
        thread.setDaemon(true);
        thread.start();
        final Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("port", pingPort);
        ready.put("port2", pongPort);
        ready.put("dir", node.directory());
        return ready;
    }

    static String udp(final int port)
    {
        return "aeron:udp?endpoint=127.0.0.1:" + port;
    }

    private static int freeUdpPort() throws IOException
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException
    {
        if (pong != null)
        {
            pong.stop();
            thread.join(5_000);
        }
        if (node != null)
        {
            node.close();
        }
    }
}
