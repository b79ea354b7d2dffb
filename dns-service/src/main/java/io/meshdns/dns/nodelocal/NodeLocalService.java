package io.meshdns.dns.nodelocal;

import io.meshdns.dns.base.StartupOrder;

import io.meshdns.dns.base.ConfigValues;
import io.meshdns.dns.base.DaemonThreads;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.dns.forward.ForwardConfig;
import io.meshdns.dns.forward.Upstream;
import io.meshdns.dns.forward.ZoneForward;
import io.meshdns.dns.metrics.Counters;
import io.meshdns.dns.server.BindAddressSource;
import io.meshdns.dns.server.ServerConfig;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The node-local wiring's lifecycle: at start (before the listeners open) the interface, address and
 * rules are put in place and the listeners bind that address; every {@code check-interval} whatever went
 * missing is put back ({@code meshdns_node_local_repairs_total}); at exit, once the listeners are closed,
 * it is all removed, unless {@code keep-on-exit}, or another instance still serves the address (a pod
 * replacing this one during an upgrade, sharing the port through reuse-port: removing the interface
 * under it would be the outage the upgrade avoids).
 */
@ApplicationScoped
public class NodeLocalService implements BindAddressSource {
    private static final Logger LOG = Logger.getLogger(NodeLocalService.class);

    @Inject
    NodeLocalConfig config;
    @Inject
    ServerConfig serverConfig;
    @Inject
    MeterRegistry registry;
    @Inject
    ForwardConfig forwardConfig;

    private NodeLocalSettings settings;
    private int port;
    private NodeLocalNetwork network;
    private ScheduledExecutorService checker;
    private LongAdder repairs;

    /** Validated on first use: DnsServer asks for the bind address while it validates its own keys. */
    synchronized NodeLocalSettings settings() {
        if (settings == null) {
            NodeLocalSettings s = NodeLocalSettings.from(config);
            if (s.enabled()) {
                port = ConfigValues.parseInt(ServerConfig.PORT, serverConfig.port(), 0, 65535);
                if (port == 0) {
                    throw new InvalidConfigException(ServerConfig.PORT, "0 (any port) cannot be wired to pods: "
                            + NodeLocalConfig.ENABLED + "=true needs a fixed port (53)");
                }
                rejectUpstreamsWeHold(s, port);
                if (s.rules() == NodeLocalSettings.Rules.IPTABLES && s.addresses().stream().anyMatch(NodeLocalSettings.NodeAddress::ipv6)
                        && !onPath("ip6tables")) {
                    throw new InvalidConfigException(addressKey(), String.join(",", s.literals())
                            + ": IPv6 addresses in rules mode iptables need ip6tables, which is not on PATH here "
                            + "(install it, or use " + NodeLocalConfig.RULES + "=nftables: its inet table holds both families)");
                }
            }
            settings = s;
        }
        return settings;
    }

    @Override
    public List<String> bindAddresses() {
        return settings().enabled() ? settings().literals() : List.of();
    }

    /**
     * An upstream at one of our addresses and our port would be ourselves: in the kube-dns ClusterIP mode the
     * ClusterIP is on our interface, so forwarding to it loops back to us instead of reaching kube-dns (forward
     * to a second Service in front of kube-dns, NodeLocal DNSCache's kube-dns-upstream). Checked here, where the
     * addresses are known; the forwarder itself checks meshdns.dns.bind-address.
     */
    private void rejectUpstreamsWeHold(NodeLocalSettings s, int port) {
        java.util.Set<InetAddress> held = new java.util.HashSet<>();
        for (String literal : s.literals()) {
            try {
                held.add(InetAddress.getByName(literal));
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException(e); // a validated literal: not a name to look up
            }
        }
        List<Upstream> upstreams = new java.util.ArrayList<>();
        for (String spec : forwardConfig.upstreams().orElse(List.of())) {
            if (!spec.isBlank()) {
                upstreams.add(Upstream.parse(spec, "meshdns.dns.upstreams"));
            }
        }
        check(upstreams, "meshdns.dns.upstreams", held, port);
        for (ZoneForward zone : ZoneForward.parse(forwardConfig.zoneForwards().orElse(List.of()))) {
            check(zone.servers(), ZoneForward.KEY, held, port);
        }
    }

    private static void check(List<Upstream> upstreams, String key, java.util.Set<InetAddress> held, int port) {
        for (Upstream u : upstreams) {
            if (u.address().getPort() == port && held.contains(u.address().getAddress())) {
                throw new InvalidConfigException(key, u.label() + " is an address this node-local DNS holds ("
                        + NodeLocalConfig.ADDRESSES + "): forwarding to it would loop back here (forward to a separate "
                        + "Service in front of the cluster DNS, as NodeLocal DNSCache's kube-dns-upstream)");
            }
        }
    }

    private String addressKey() {
        return config.addresses().filter(l -> !l.isEmpty()).isPresent() ? NodeLocalConfig.ADDRESSES : NodeLocalConfig.ADDRESS;
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "/usr/sbin:/usr/bin:/sbin:/bin" : path).split(":")) {
            if (!dir.isEmpty() && java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    void onStart(@Observes @Priority(StartupOrder.NODE_WIRING) StartupEvent event) {
        NodeLocalSettings s = settings();
        if (!s.enabled()) {
            return;
        }
        repairs = Counters.register(registry, "meshdns.node.local.repairs",
                "Times the node-local interface, address or rules were found missing and put back");
        network = new NodeLocalNetwork(s, new RuleSet(s, port), new ProcessCommandRunner());
        List<String> added = network.ensure();
        LOG.infof("node-local: %s on %s, rules %s (%s)", String.join(", ", s.literals()), s.interfaceName(), s.rules().name().toLowerCase(),
                added.isEmpty() ? "already in place" : "added " + String.join("; ", added));
        checker = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("meshdns-node-local"));
        long every = s.checkInterval().toMillis();
        checker.scheduleWithFixedDelay(this::check, every, every, TimeUnit.MILLISECONDS);
    }

    /** One periodic check; any failure is logged and the next check runs all the same. */
    private void check() {
        try {
            List<String> added = network.ensure();
            if (!added.isEmpty()) {
                repairs.increment();
                LOG.warnf("node-local: put back what had gone missing: %s", String.join("; ", added));
            }
        } catch (Throwable t) {
            LOG.errorf("node-local: check failed, retrying in %s: %s", settings.checkInterval(), t.getMessage());
        }
    }

    void onStop(@Observes @Priority(StartupOrder.NODE_WIRING_CLOSE) ShutdownEvent event) {
        if (network == null) {
            return;
        }
        checker.shutdownNow();
        if (settings.keepOnExit()) {
            LOG.infof("node-local: keeping %s and its rules (%s=true)", settings.interfaceName(), NodeLocalConfig.KEEP_ON_EXIT);
            return;
        }
        String served = servedByAnother(settings.literals(), port);
        if (served != null) {
            LOG.infof("node-local: another instance serves %s port %d: keeping %s and its rules", served, port,
                    settings.interfaceName());
            return;
        }
        network.remove();
        LOG.infof("node-local: removed %s and its rules", settings.interfaceName());
    }

    /**
     * Our listeners are closed by now: if the UDP port stays taken on any of our addresses, another instance holds
     * it (an upgrade's new pod, which may listen on only some of them). Each address is probed for up to a second,
     * since our own sockets can take a moment to be released after the close completes; only "in use" counts (a
     * refused bind for want of a capability says nothing about others). The first address in use, or null.
     */
    static String servedByAnother(java.util.List<String> addresses, int port) {
        for (int attempt = 0; attempt < 10; attempt++) {
            boolean anyInUse = false;
            for (String address : addresses) {
                if (inUse(address, port)) {
                    anyInUse = true;
                    if (attempt == 9) return address;
                }
            }
            if (!anyInUse) {
                return null;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return addresses.get(0);
            }
        }
        return null;
    }

    private static boolean inUse(String address, int port) {
        try (DatagramSocket probe = new DatagramSocket(null)) {
            probe.bind(new InetSocketAddress(InetAddress.getByName(address), port));
            return false;
        } catch (BindException e) {
            return String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("in use");
        } catch (SocketException | java.net.UnknownHostException e) {
            return false;
        }
    }
}
