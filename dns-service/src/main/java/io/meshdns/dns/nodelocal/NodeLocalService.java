package io.meshdns.dns.nodelocal;

import io.meshdns.dns.base.StartupOrder;

import io.meshdns.dns.base.ConfigValues;

import io.meshdns.dns.InvalidConfigException;
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
import java.util.Optional;
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
            }
            settings = s;
        }
        return settings;
    }

    @Override
    public Optional<String> bindAddress() {
        return settings().enabled() ? Optional.of(settings().address()) : Optional.empty();
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
        LOG.infof("node-local: %s on %s, rules %s (%s)", s.address(), s.interfaceName(), s.rules().name().toLowerCase(),
                added.isEmpty() ? "already in place" : "added " + String.join("; ", added));
        checker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "meshdns-node-local");
            t.setDaemon(true);
            return t;
        });
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
        if (servedByAnother()) {
            LOG.infof("node-local: another instance serves %s port %d: keeping %s and its rules", settings.address(), port,
                    settings.interfaceName());
            return;
        }
        network.remove();
        LOG.infof("node-local: removed %s and its rules", settings.interfaceName());
    }

    /**
     * Our listeners are closed by now: if the UDP port stays taken, another instance holds it. The port is
     * probed for up to a second, since our own sockets can take a moment to be released after the close
     * completes; only "in use" counts (a refused bind for want of a capability says nothing about others).
     */
    private boolean servedByAnother() {
        for (int attempt = 0; attempt < 10; attempt++) {
            try (DatagramSocket probe = new DatagramSocket(null)) {
                probe.bind(new InetSocketAddress(InetAddress.getByName(settings.address()), port));
                return false;
            } catch (BindException e) {
                String why = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
                if (!why.contains("in use")) {
                    return false;
                }
            } catch (SocketException | java.net.UnknownHostException e) {
                return false;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
            }
        }
        return true;
    }
}
