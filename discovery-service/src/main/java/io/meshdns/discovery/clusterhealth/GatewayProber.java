package io.meshdns.discovery.clusterhealth;

import io.meshdns.discovery.catalog.CatalogAggregator;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Probes every configured cluster's east-west gateway on one thread of its own (a probe blocks for at most
 * {@code timeout} per address, so a round is bounded by the addresses configured), turns the results into a verdict
 * with hysteresis ({@link GatewayHealth}) and hands every verdict to the catalog, which sends it to the nodes with the
 * cluster's status. Metric {@code meshdns_discovery_cluster_gateway_healthy{cluster}} (1 up, 0 down).
 */
@Startup
@ApplicationScoped
public class GatewayProber {
    private static final Logger LOG = Logger.getLogger(GatewayProber.class);

    @Inject
    ClusterHealthConfig config;
    @Inject
    CatalogAggregator aggregator;
    @Inject
    MeterRegistry registry;

    private final Map<String, GatewayHealth> health = new ConcurrentHashMap<>();
    private Map<String, List<InetSocketAddress>> targets = Map.of();
    private ScheduledExecutorService thread;

    @PostConstruct
    void start() {
        targets = parse(config);
        if (targets.isEmpty()) return;
        long now = System.currentTimeMillis();
        for (String cluster : targets.keySet()) {
            health.put(cluster, GatewayHealth.initial(now));
            Gauge.builder("meshdns.discovery.cluster.gateway.healthy", health, h -> h.get(cluster).healthy() ? 1 : 0)
                    .tag("cluster", cluster).description("The cluster's east-west gateway as the probes see it (1 up, 0 down)")
                    .register(registry);
        }
        thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "meshdns-gateway-probes");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::probeAll, 0, config.interval().toMillis(), TimeUnit.MILLISECONDS);
        LOG.infof("probing the east-west gateways of %s every %s", targets.keySet(), config.interval());
    }

    void stop(@Observes ShutdownEvent event) {
        if (thread != null) thread.shutdownNow();
    }

    /** The verdicts now, by cluster (the status page). */
    public Map<String, GatewayHealth> verdicts() {
        return Map.copyOf(health);
    }

    private void probeAll() {
        for (Map.Entry<String, List<InetSocketAddress>> e : targets.entrySet()) {
            try {
                boolean ok = e.getValue().stream().anyMatch(this::accepts);
                long now = System.currentTimeMillis();
                GatewayHealth before = health.get(e.getKey());
                GatewayHealth after = before.after(ok, config.unhealthyThreshold(), config.healthyThreshold(), now);
                health.put(e.getKey(), after);
                if (after.healthy() != before.healthy()) {
                    LOG.warnf("cluster %s: east-west gateway %s is %s", e.getKey(), e.getValue(), after.healthy() ? "up again" : "down");
                }
                aggregator.updateGatewayHealth(e.getKey(), after.healthy(), after.sinceEpochMillis());
            } catch (RuntimeException ex) {
                LOG.debugf("probing cluster %s failed: %s", e.getKey(), ex.getMessage());
            }
        }
    }

    private boolean accepts(InetSocketAddress address) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address.getHostString(), address.getPort()), (int) Math.max(1, config.timeout().toMillis()));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The probe targets, checked: a bad value stops the start naming its key. */
    static Map<String, List<InetSocketAddress>> parse(ClusterHealthConfig c) {
        String prefix = "meshdns.discovery.cluster-health.";
        if (c.interval().isZero() || c.interval().isNegative()) throw new IllegalArgumentException(prefix + "interval: must be positive, got " + c.interval());
        if (c.timeout().isZero() || c.timeout().isNegative()) throw new IllegalArgumentException(prefix + "timeout: must be positive, got " + c.timeout());
        if (c.unhealthyThreshold() < 1) throw new IllegalArgumentException(prefix + "unhealthy-threshold: must be at least 1, got " + c.unhealthyThreshold());
        if (c.healthyThreshold() < 1) throw new IllegalArgumentException(prefix + "healthy-threshold: must be at least 1, got " + c.healthyThreshold());
        Map<String, List<InetSocketAddress>> out = new LinkedHashMap<>();
        c.gateways().forEach((cluster, list) -> out.put(cluster, list.stream().map(a -> address(prefix + "gateways." + cluster, a)).toList()));
        return out;
    }

    private static InetSocketAddress address(String key, String text) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) throw new IllegalArgumentException(key + ": '" + t + "' is not host:port");
        String host = t.substring(0, colon).replace("[", "").replace("]", "");
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + ": '" + t + "' has no port number");
        }
        if (port < 1 || port > 65535) throw new IllegalArgumentException(key + ": '" + t + "' has a port outside 1..65535");
        return InetSocketAddress.createUnresolved(host, port); // a name is looked up at each probe: gateways move
    }
}
