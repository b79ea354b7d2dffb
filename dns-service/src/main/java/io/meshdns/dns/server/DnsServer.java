package io.meshdns.dns.server;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.metrics.DnsMetrics;
import io.meshdns.dns.snapshot.SnapshotStore;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.parsetools.RecordParser;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.concurrent.TimeUnit;

/**
 * The UDP and TCP listeners, on the same address and port. Starts after the record sources (so the
 * first query already sees the zones) and exposes the port it bound through {@link #boundPort()}.
 * TCP follows RFC 7766: two-byte length framing, pipelined queries answered as they complete (in any
 * order), and an idle timeout.
 */
@ApplicationScoped
public class DnsServer {
    private static final Logger LOG = Logger.getLogger(DnsServer.class);
    /** Startup order: record sources observe StartupEvent before this (lower number first). */
    public static final int STARTUP_PRIORITY = 2000;
    private static final int BIND_ATTEMPTS = 5;

    @Inject
    Vertx vertx;
    @Inject
    ServerConfig config;
    @Inject
    RequestProcessor processor;
    @Inject
    SnapshotStore store;
    @Inject
    DnsMetrics metrics;

    private ServerSettings settings;
    private volatile UdpListener udp;
    private volatile NetServer tcp;
    private volatile int boundPort = -1;

    /** Validates the listener config first of all, so a bad key fails the start before any file is read. */
    void validate(@Observes @Priority(10) StartupEvent event) {
        settings = ServerSettings.from(config);
        udpReceiveBuffer();
        ServerSettings.parseInt(ServerConfig.UDP_ANSWER_MEMO, config.udp().answerMemoEntries(), 0, 10_000_000);
    }

    void onStart(@Observes @Priority(STARTUP_PRIORITY) StartupEvent event) throws Exception {
        store.publishInitial();
        // Build the request path (handlers, the forwarder and its upstream sockets) on this thread before the
        // listeners open. Left to the first query, its creation ran on the event loop while this thread, starting
        // the forwarder bean, held the bean's lock and waited for that same event loop to bind the upstream
        // sockets: the start hung until the bind timed out.
        processor.prepare();
        bind();
        metrics.setServer("dns://" + (settings.ipv6() ? "[" + settings.bindAddress() + "]" : settings.bindAddress())
                + ":" + boundPort);
        LOG.infof("dns-service listening on %s port %d (udp+tcp), allowed clients %s", settings.bindAddress(),
                boundPort, settings.allowedClients());
    }

    void onStop(@Observes ShutdownEvent event) {
        close();
    }

    /** The port both listeners are bound to; -1 before start. With meshdns.dns.port=0 this is the real one. */
    public int boundPort() {
        return boundPort;
    }

    public String bindAddress() {
        return settings == null ? null : settings.bindAddress();
    }

    public boolean isListening() {
        return boundPort > 0;
    }

    private void bind() throws Exception {
        Exception last = null;
        for (int attempt = 1; attempt <= BIND_ATTEMPTS; attempt++) {
            try {
                UdpListener socket = UdpListener.bind(vertx, settings, udpReceiveBuffer(), settings.port(), processor,
                        metrics);
                int port = socket.port();
                try {
                    tcp = bindTcp(port);
                } catch (Exception e) {
                    socket.close();
                    throw e;
                }
                udp = socket;
                boundPort = port;
                return;
            } catch (Exception e) {
                last = e;
                if (settings.port() != 0) {
                    break; // a fixed port that is taken will not free itself by retrying
                }
                LOG.debugf("port 0: TCP could not take the UDP port (attempt %d): %s", attempt, e.getMessage());
            }
        }
        throw new IllegalStateException("cannot bind UDP+TCP on " + settings.bindAddress() + " port " + settings.port()
                + " (" + ServerConfig.BIND_ADDRESS + ", " + ServerConfig.PORT + "): " + last.getMessage(), last);
    }

    private int udpReceiveBuffer() {
        return ServerSettings.parseInt(ServerConfig.UDP_RECEIVE_BUFFER, config.udp().receiveBuffer(), 4096,
                Integer.MAX_VALUE);
    }

    private NetServer bindTcp(int port) throws Exception {
        NetServer server = vertx.createNetServer(new NetServerOptions()
                .setIdleTimeout((int) settings.tcpIdleTimeout().toMillis())
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                .setTcpNoDelay(true));
        server.connectHandler(this::onConnection);
        try {
            return server.listen(port, settings.bindAddress()).toCompletionStage().toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            server.close();
            throw e;
        }
    }

    private void onConnection(NetSocket socket) {
        String host = socket.remoteAddress().host();
        if (!settings.acl().allows(host)) {
            metrics.aclDropped(true);
            socket.close();
            return;
        }
        ClientInfo client = new ClientInfo(host, socket.remoteAddress().port(), host.indexOf(':') >= 0, Transport.TCP);
        // RFC 7766 framing: a two-byte length, then the message. The parser buffers partial frames.
        RecordParser parser = RecordParser.newFixed(2);
        parser.handler(new java.util.function.Consumer<Buffer>() {
            private boolean expectLength = true;

            @Override
            public void accept(Buffer frame) {
                if (expectLength) {
                    int length = frame.getUnsignedShort(0);
                    if (length == 0) {
                        socket.close();
                        return;
                    }
                    expectLength = false;
                    parser.fixedSizeMode(length);
                    return;
                }
                expectLength = true;
                parser.fixedSizeMode(2);
                byte[] message = frame.getBytes();
                if (message.length < 12) {
                    socket.close(); // not even a header: the stream cannot be trusted any more
                    return;
                }
                processor.process(message, client, response -> {
                    Buffer out = Buffer.buffer(response.length + 2);
                    out.appendUnsignedShort(response.length).appendBytes(response);
                    socket.write(out);
                });
            }
        }::accept);
        socket.handler(parser);
        socket.exceptionHandler(e -> LOG.debugf("tcp %s: %s", host, e.getMessage()));
    }

    private void close() {
        if (tcp != null) {
            tcp.close();
        }
        if (udp != null) {
            udp.close();
        }
        boundPort = -1;
    }
}
