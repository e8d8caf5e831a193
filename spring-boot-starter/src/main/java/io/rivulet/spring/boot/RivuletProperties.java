package io.rivulet.spring.boot;

import io.rivulet.EngineFailure;
import io.rivulet.ThreadingMode;
import io.rivulet.transport.tcp.TlsSettings;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.List;

/**
 * The {@code rivulet.*} properties, one for each {@link io.rivulet.Rivulet.Context} setting that is a value. A
 * property left unset leaves the Context's own default, which reads the {@code -Drivulet.*} system property of
 * the same name (README, Configuration). Sizes and durations are kept as written and read by {@link ContextBinding}
 * with the core's rules ({@link io.rivulet.spi.PropertyValues}: {@code 64k}, {@code 500ms}; a bare number other than
 * 0 is refused for a duration) and Spring's forms besides ({@code 64KB}, {@code 5m}, {@code PT5S}), so that the
 * {@code -Drivulet.*} system properties, which Spring sees too, bind as the core reads them. {@link ContextBinding}
 * applies them; the Context checks them when the node launches.
 *
 * <p>JavaBean accessors, as Spring's binder and configuration processor need. Not thread-safe: bound once at
 * start-up.
 */
@ConfigurationProperties("rivulet")
public class RivuletProperties
{
    /** Transport by name ("tcp", "rdma"); default: the rivulet.transport system property, else tcp. */
    private String transport;

    /** Where the engine's agents run: DEDICATED (two threads), SHARED (one thread) or INVOKER. Default SHARED. */
    private ThreadingMode threadingMode;

    /** How idle engine threads wait: backoff (default), busy, yield, sleep or noop. */
    private String idleStrategy;

    /** How block() on a request-response waits: park (default), backoff, busy or yield. */
    private String replyIdleStrategy;

    /** Whether a thread blocked on a reply runs a sleeping SHARED engine's duty cycle. Default true. */
    private Boolean replyWaitRunsEngine;

    /** Longest frame on the wire; larger messages are fragmented. Default 16k. Bytes, 64k, 16m, 1g or 64KB. */
    private String maxFrameLength;

    /** Longest message sent or reassembled. Default 16m. Bytes, 64k, 16m, 1g or 64KB. */
    private String maxMessageLength;

    /** Most credits a receiving stream keeps granted at once. Default 256. */
    private Integer streamWindow;

    /** Per-connection outbound ring, a power of two of at least 8 frames. Default 256k. Bytes, 64k, 16m, 1g or 64KB. */
    private String outboundRingLength;

    /** Per-link user-space send and receive buffers. Default 256k. Bytes, 64k, 16m, 1g or 64KB. */
    private String linkBufferLength;

    /** How often KEEPALIVE is sent. Default 1s. With a unit: 500ms, 5s, 5m, PT5S. */
    private String keepaliveInterval;

    /** Silence after which a peer is lost. Default 5s. With a unit: 500ms, 5s, 5m, PT5S. */
    private String keepaliveTimeout;

    /** How long a connection attempt may take. Default 5s. With a unit: 500ms, 5s, 5m, PT5S. */
    private String connectTimeout;

    /** Credits a topic subscriber keeps granted per topic. Default 2048. */
    private Integer topicWindow;

    /**
     * How often an idle topic publisher sends a heartbeat, and a subscriber its status. Default 100ms. With a unit:
     * 500ms, 5s, 5m, PT5S.
     */
    private String topicHeartbeatInterval;

    /**
     * Silence after which a topic's publisher or subscriber is presumed dead. Default 5s. With a unit: 500ms, 5s, 5m,
     * PT5S.
     */
    private String topicHeartbeatTimeout;

    /**
     * How long an accepted connection may take to send SETUP, and a client waits for its answer. Default 2s. With a
     * unit: 500ms, 5s, 5m, PT5S.
     */
    private String setupTimeout;

    /** Streams a peer may have open at once on one connection. Default 4096. */
    private Integer maxStreams;

    /** Requests this node may have open at once on one connection. Default 65536. */
    private Integer maxPendingRequests;

    /**
     * Bytes of messages that may wait per connection for room in a full outbound ring. Default 64m. Bytes, 64k, 16m, 1g
     * or 64KB.
     */
    private String maxParkedBytes;

    /** Connections this node holds at once, accepted and connected. Default 4096. */
    private Integer maxConnections;

    /** Accepted connections from one remote host that may wait for their SETUP at once. Default 256. */
    private Integer maxPendingSetupsPerAddress;

    /** Bytes one connection may hold on behalf of its peer. Default 128m. Bytes, 64k, 16m, 1g or 64KB. */
    private String maxConnectionMemory;

    /**
     * Bytes all connections together may hold on behalf of their peers. Default: a quarter of the maximum heap. Bytes,
     * 64k, 16m, 1g or 64KB.
     */
    private String maxNodeMemory;

    /**
     * The longest keepalive timeout this node's servers grant a client. Default 60s. With a unit: 500ms, 5s, 5m, PT5S.
     */
    private String maxKeepaliveTimeout;

    /**
     * How long an accepted connection may stay idle before the server closes it; 0 keeps it. Default 5m. With a unit:
     * 500ms, 5s, 5m, PT5S.
     */
    private String idleTimeout;

    /** The token this node's connections send in SETUP. Default none. */
    private String authToken;

    /** Tokens this node's servers accept in SETUP; a connection without one of them is refused. Default: anyone. */
    private List<String> authTokens;

    /** Whether topic data goes as reliable datagrams (rdma transport only). Default false. */
    private Boolean topicDatagrams;

    /** The node's name in its node file and in tools. Default node-n. */
    private String nodeName;

    /** Directory of node files, read by `rivulet stat`. Default /dev/shm/rivulet-user. */
    private String countersDir;

    /** Whether counters live in a memory-mapped node file other processes can read. Default true. */
    private Boolean countersFile;

    /** Whether a clean close deletes the node file. Default true. */
    private Boolean countersDeleteOnClose;

    /** Counter slots in the node file. Default 1024 plus 8 per connection of maxConnections (33,792). */
    private Integer maxCounters;

    /** Bytes of the distinct error log in the node file. Default 1m. Bytes, 64k, 16m, 1g or 64KB. */
    private String errorLogLength;

    /** What the node does once its engine failed: CLOSE (default) or EXIT (halts the JVM). */
    private EngineFailure engineFailure;

    private final Server server = new Server();

    private final Ssl ssl = new Ssl();

    private final Client client = new Client();

    private final Observations observations = new Observations();

    public String getTransport()
    {
        return transport;
    }

    public void setTransport(final String transport)
    {
        this.transport = transport;
    }

    public ThreadingMode getThreadingMode()
    {
        return threadingMode;
    }

    public void setThreadingMode(final ThreadingMode threadingMode)
    {
        this.threadingMode = threadingMode;
    }

    public String getIdleStrategy()
    {
        return idleStrategy;
    }

    public void setIdleStrategy(final String idleStrategy)
    {
        this.idleStrategy = idleStrategy;
    }

    public String getReplyIdleStrategy()
    {
        return replyIdleStrategy;
    }

    public void setReplyIdleStrategy(final String replyIdleStrategy)
    {
        this.replyIdleStrategy = replyIdleStrategy;
    }

    public Boolean getReplyWaitRunsEngine()
    {
        return replyWaitRunsEngine;
    }

    public void setReplyWaitRunsEngine(final Boolean replyWaitRunsEngine)
    {
        this.replyWaitRunsEngine = replyWaitRunsEngine;
    }

    public String getMaxFrameLength()
    {
        return maxFrameLength;
    }

    public void setMaxFrameLength(final String maxFrameLength)
    {
        this.maxFrameLength = maxFrameLength;
    }

    public String getMaxMessageLength()
    {
        return maxMessageLength;
    }

    public void setMaxMessageLength(final String maxMessageLength)
    {
        this.maxMessageLength = maxMessageLength;
    }

    public Integer getStreamWindow()
    {
        return streamWindow;
    }

    public void setStreamWindow(final Integer streamWindow)
    {
        this.streamWindow = streamWindow;
    }

    public String getOutboundRingLength()
    {
        return outboundRingLength;
    }

    public void setOutboundRingLength(final String outboundRingLength)
    {
        this.outboundRingLength = outboundRingLength;
    }

    public String getLinkBufferLength()
    {
        return linkBufferLength;
    }

    public void setLinkBufferLength(final String linkBufferLength)
    {
        this.linkBufferLength = linkBufferLength;
    }

    public String getKeepaliveInterval()
    {
        return keepaliveInterval;
    }

    public void setKeepaliveInterval(final String keepaliveInterval)
    {
        this.keepaliveInterval = keepaliveInterval;
    }

    public String getKeepaliveTimeout()
    {
        return keepaliveTimeout;
    }

    public void setKeepaliveTimeout(final String keepaliveTimeout)
    {
        this.keepaliveTimeout = keepaliveTimeout;
    }

    public String getConnectTimeout()
    {
        return connectTimeout;
    }

    public void setConnectTimeout(final String connectTimeout)
    {
        this.connectTimeout = connectTimeout;
    }

    public Integer getTopicWindow()
    {
        return topicWindow;
    }

    public void setTopicWindow(final Integer topicWindow)
    {
        this.topicWindow = topicWindow;
    }

    public String getTopicHeartbeatInterval()
    {
        return topicHeartbeatInterval;
    }

    public void setTopicHeartbeatInterval(final String topicHeartbeatInterval)
    {
        this.topicHeartbeatInterval = topicHeartbeatInterval;
    }

    public String getTopicHeartbeatTimeout()
    {
        return topicHeartbeatTimeout;
    }

    public void setTopicHeartbeatTimeout(final String topicHeartbeatTimeout)
    {
        this.topicHeartbeatTimeout = topicHeartbeatTimeout;
    }

    public String getSetupTimeout()
    {
        return setupTimeout;
    }

    public void setSetupTimeout(final String setupTimeout)
    {
        this.setupTimeout = setupTimeout;
    }

    public Integer getMaxStreams()
    {
        return maxStreams;
    }

    public void setMaxStreams(final Integer maxStreams)
    {
        this.maxStreams = maxStreams;
    }

    public Integer getMaxPendingRequests()
    {
        return maxPendingRequests;
    }

    public void setMaxPendingRequests(final Integer maxPendingRequests)
    {
        this.maxPendingRequests = maxPendingRequests;
    }

    public String getMaxParkedBytes()
    {
        return maxParkedBytes;
    }

    public void setMaxParkedBytes(final String maxParkedBytes)
    {
        this.maxParkedBytes = maxParkedBytes;
    }

    public Integer getMaxConnections()
    {
        return maxConnections;
    }

    public void setMaxConnections(final Integer maxConnections)
    {
        this.maxConnections = maxConnections;
    }

    public Integer getMaxPendingSetupsPerAddress()
    {
        return maxPendingSetupsPerAddress;
    }

    public void setMaxPendingSetupsPerAddress(final Integer maxPendingSetupsPerAddress)
    {
        this.maxPendingSetupsPerAddress = maxPendingSetupsPerAddress;
    }

    public String getMaxConnectionMemory()
    {
        return maxConnectionMemory;
    }

    public void setMaxConnectionMemory(final String maxConnectionMemory)
    {
        this.maxConnectionMemory = maxConnectionMemory;
    }

    public String getMaxNodeMemory()
    {
        return maxNodeMemory;
    }

    public void setMaxNodeMemory(final String maxNodeMemory)
    {
        this.maxNodeMemory = maxNodeMemory;
    }

    public String getMaxKeepaliveTimeout()
    {
        return maxKeepaliveTimeout;
    }

    public void setMaxKeepaliveTimeout(final String maxKeepaliveTimeout)
    {
        this.maxKeepaliveTimeout = maxKeepaliveTimeout;
    }

    public String getIdleTimeout()
    {
        return idleTimeout;
    }

    public void setIdleTimeout(final String idleTimeout)
    {
        this.idleTimeout = idleTimeout;
    }

    public String getAuthToken()
    {
        return authToken;
    }

    public void setAuthToken(final String authToken)
    {
        this.authToken = authToken;
    }

    public List<String> getAuthTokens()
    {
        return authTokens;
    }

    public void setAuthTokens(final List<String> authTokens)
    {
        this.authTokens = authTokens;
    }

    public Boolean getTopicDatagrams()
    {
        return topicDatagrams;
    }

    public void setTopicDatagrams(final Boolean topicDatagrams)
    {
        this.topicDatagrams = topicDatagrams;
    }

    public String getNodeName()
    {
        return nodeName;
    }

    public void setNodeName(final String nodeName)
    {
        this.nodeName = nodeName;
    }

    public String getCountersDir()
    {
        return countersDir;
    }

    public void setCountersDir(final String countersDir)
    {
        this.countersDir = countersDir;
    }

    public Boolean getCountersFile()
    {
        return countersFile;
    }

    public void setCountersFile(final Boolean countersFile)
    {
        this.countersFile = countersFile;
    }

    public Boolean getCountersDeleteOnClose()
    {
        return countersDeleteOnClose;
    }

    public void setCountersDeleteOnClose(final Boolean countersDeleteOnClose)
    {
        this.countersDeleteOnClose = countersDeleteOnClose;
    }

    public Integer getMaxCounters()
    {
        return maxCounters;
    }

    public void setMaxCounters(final Integer maxCounters)
    {
        this.maxCounters = maxCounters;
    }

    public String getErrorLogLength()
    {
        return errorLogLength;
    }

    public void setErrorLogLength(final String errorLogLength)
    {
        this.errorLogLength = errorLogLength;
    }

    public EngineFailure getEngineFailure()
    {
        return engineFailure;
    }

    public void setEngineFailure(final EngineFailure engineFailure)
    {
        this.engineFailure = engineFailure;
    }

    public Server getServer()
    {
        return server;
    }

    public Ssl getSsl()
    {
        return ssl;
    }

    public Client getClient()
    {
        return client;
    }

    public Observations getObservations()
    {
        return observations;
    }

    /** {@code rivulet.server.*}: the auto-configured server, started when a port is set. */
    public static class Server
    {
        /** Port the server listens on; 0 picks a free one. Unset: no server. */
        private Integer port;

        /**
         * Address the server binds. Default 127.0.0.1: a node accepts anyone and speaks plaintext unless told
         * otherwise, so listening beyond the machine is a choice to make (0.0.0.0, with TLS and auth tokens).
         */
        private String address = "127.0.0.1";

        public Integer getPort()
        {
            return port;
        }

        public void setPort(final Integer port)
        {
            this.port = port;
        }

        public String getAddress()
        {
            return address;
        }

        public void setAddress(final String address)
        {
            this.address = address;
        }
    }

    /** {@code rivulet.ssl.*}: TLS over the TCP transport from one of Spring Boot's SSL bundles. */
    public static class Ssl
    {
        /** Name of the spring.ssl.bundle to take the node's certificate and trust from; unset: plain TCP. */
        private String bundle;

        /** Whether the server requires clients to present a certificate (NONE or REQUIRED). */
        private TlsSettings.ClientAuth clientAuth = TlsSettings.ClientAuth.NONE;

        /** Whether a client checks that the server's certificate names the host it connects to. */
        private boolean verifyHostname = true;

        public String getBundle()
        {
            return bundle;
        }

        public void setBundle(final String bundle)
        {
            this.bundle = bundle;
        }

        public TlsSettings.ClientAuth getClientAuth()
        {
            return clientAuth;
        }

        public void setClientAuth(final TlsSettings.ClientAuth clientAuth)
        {
            this.clientAuth = clientAuth;
        }

        public boolean isVerifyHostname()
        {
            return verifyHostname;
        }

        public void setVerifyHostname(final boolean verifyHostname)
        {
            this.verifyHostname = verifyHostname;
        }
    }

    /** {@code rivulet.client.*}: connections made through {@link RivuletConnections}. */
    public static class Client
    {
        /** Back-off before the first reconnection attempt, doubling up to max-backoff. */
        private Duration firstBackoff = Duration.ofMillis(100);

        /** Longest back-off between reconnection attempts. */
        private Duration maxBackoff = Duration.ofSeconds(5);

        /** Failed attempts in a row before a request fails with the last error; unset: retry without end. */
        private Long maxAttempts;

        public Duration getFirstBackoff()
        {
            return firstBackoff;
        }

        public void setFirstBackoff(final Duration firstBackoff)
        {
            this.firstBackoff = firstBackoff;
        }

        public Duration getMaxBackoff()
        {
            return maxBackoff;
        }

        public void setMaxBackoff(final Duration maxBackoff)
        {
            this.maxBackoff = maxBackoff;
        }

        public Long getMaxAttempts()
        {
            return maxAttempts;
        }

        public void setMaxAttempts(final Long maxAttempts)
        {
            this.maxAttempts = maxAttempts;
        }
    }

    /** {@code rivulet.observations.*}: Micrometer observations of every request ({@code RivuletObservations}). */
    public static class Observations
    {
        /** Whether requests are observed when the application has an ObservationRegistry bean. */
        private boolean enabled = true;

        public boolean isEnabled()
        {
            return enabled;
        }

        public void setEnabled(final boolean enabled)
        {
            this.enabled = enabled;
        }
    }
}
