package io.meshdns.dns.server;

import io.meshdns.dns.base.ConfigValues;

import io.meshdns.dns.base.ListenersOpened;
import io.meshdns.dns.base.StartupOrder;

import io.meshdns.dns.metrics.DnsMetrics;
import io.meshdns.dns.ratelimit.ResponseRateLimiter;
import io.meshdns.dns.snapshot.SnapshotStore;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/**
 * The UDP and TCP listeners ({@link UdpListener}, {@link TcpListener}), on the same address and port,
 * opened and drained by {@link ListenerLifecycle}. Starts after the record sources (so the first query
 * already sees the zones) and exposes the port it bound through {@link #boundPort()}.
 */
@ApplicationScoped
public class DnsServer {
    private static final Logger LOG = Logger.getLogger(DnsServer.class);

    @Inject
    Vertx vertx;
    @Inject
    ServerConfig config;
    @Inject
    RequestProcessor processor;
    @Inject
    ResponseRateLimiter rateLimiter;
    @Inject
    SnapshotStore store;
    @Inject
    DnsMetrics metrics;
    @Inject
    ListenerMetrics listenerMetrics;
    @Inject
    jakarta.enterprise.inject.Instance<BindAddressSource> bindAddressSources;
    @Inject
    jakarta.enterprise.event.Event<ListenersOpened> opened;

    private ServerSettings settings;
    private volatile ListenerLifecycle listeners;

    /** Validates the listener config first of all, so a bad key fails the start before any file is read. */
    void validate(@Observes @Priority(StartupOrder.VALIDATE) StartupEvent event) {
        settings = ServerSettings.from(config);
        for (BindAddressSource source : bindAddressSources) {
            java.util.List<String> addresses = source.bindAddresses();
            if (!addresses.isEmpty()) {
                settings = settings.withBindAddresses(addresses);
            }
        }
        udpReceiveBuffer();
        ConfigValues.parseInt(ServerConfig.UDP_ANSWER_MEMO, config.udp().answerMemoEntries(), 0, 10_000_000);
        ListenerLifecycle.checkReusePort(settings);
        ListenerLifecycle.checkHttpReusePort(org.eclipse.microprofile.config.ConfigProvider.getConfig()
                .getOptionalValue(ListenerLifecycle.HTTP_REUSE_PORT, Boolean.class).orElse(false), vertx.isNativeTransportEnabled());
    }

    void onStart(@Observes @Priority(StartupOrder.LISTENERS) StartupEvent event) throws Exception {
        store.publishInitial();
        // Build the request path (handlers, the forwarder and its upstream sockets) on this thread before the
        // listeners open. Left to the first query, its creation ran on the event loop while this thread, starting
        // the forwarder bean, held the bean's lock and waited for that same event loop to bind the upstream
        // sockets: the start hung until the bind timed out.
        processor.prepare();
        // The bean itself, not its client proxy: the proxy looks the application-scoped instance up on every call, once
        // per datagram (0.3 % of the server's CPU at 50k QPS in bench/profile).
        ListenerLifecycle lifecycle = new ListenerLifecycle(eventLoops(), settings, udpReceiveBuffer(), rateLimiter,
                io.quarkus.arc.ClientProxy.unwrap(processor), metrics, listenerMetrics);
        int port = lifecycle.start();
        listeners = lifecycle;
        metrics.setServer("dns://" + (settings.ipv6() ? "[" + settings.bindAddress() + "]" : settings.bindAddress())
                + ":" + port);
        LOG.infof("dns-service listening on %s port %d (udp+tcp, %s%s%s), allowed clients %s", String.join(", ", settings.bindAddresses()),
                port, lifecycle.transport(), settings.reusePort() ? ", reuse-port" : "",
                settings.udpWorkers() > 1 ? ", " + settings.udpWorkers() + " udp workers" : "", settings.allowedClients());
        opened.fire(new ListenersOpened(settings.bindAddress(), port));
    }

    /** Before the default priority, so whatever the listeners need (the node-local interface) is removed after them. */
    void onStop(@Observes @Priority(StartupOrder.LISTENERS_CLOSE) ShutdownEvent event) {
        if (listeners != null) {
            listeners.stop();
        }
    }

    /** The port both listeners are bound to; -1 before start. With meshdns.dns.port=0 this is the real one. */
    public int boundPort() {
        ListenerLifecycle l = listeners;
        return l == null ? -1 : l.port();
    }

    /** The DNS sockets' transport, "epoll" or "nio" (on the JVM and natively alike); null before start. */
    public String transport() {
        ListenerLifecycle l = listeners;
        return l == null ? null : l.transport();
    }

    /** The channel classes of the open DNS sockets (UDP, then TCP): what the transport tests assert. */
    java.util.List<Class<?>> channelClasses() {
        ListenerLifecycle l = listeners;
        return l == null ? java.util.List.of() : l.channelClasses();
    }

    /** The open UDP sockets (per bind address, its workers in order); empty before start. */
    java.util.List<UdpListener> udpSockets() {
        ListenerLifecycle l = listeners;
        return l == null ? java.util.List.of() : l.udpSockets();
    }

    /** The first address the listeners bind; null before start. */
    public String bindAddress() {
        return settings == null ? null : settings.bindAddress();
    }

    /** Every address the listeners bind; empty before start. */
    public java.util.List<String> bindAddresses() {
        return settings == null ? java.util.List.of() : settings.bindAddresses();
    }

    /** Whether {@code meshdns.dns.allowed-clients} admits {@code host} (an address literal): the operator endpoints ask too. */
    public boolean allowsClient(String host) {
        ServerSettings s = settings;
        return s != null && s.acl().allows(host);
    }

    /** Bound and not draining for a stop (readiness turns false as the drain begins). */
    public boolean isListening() {
        ListenerLifecycle l = listeners;
        return l != null && l.serving();
    }

    /** As many event loops for the DNS sockets as Vert.x has for HTTP (quarkus.vertx.event-loops-pool-size). */
    private int eventLoops() {
        return ((io.netty.util.concurrent.MultithreadEventExecutorGroup) ((io.vertx.core.impl.VertxInternal) vertx).getEventLoopGroup()).executorCount();
    }

    private int udpReceiveBuffer() {
        return ConfigValues.parseInt(ServerConfig.UDP_RECEIVE_BUFFER, config.udp().receiveBuffer(), 4096,
                Integer.MAX_VALUE);
    }
}
