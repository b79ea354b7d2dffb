package io.meshdns.it.testing;

import io.meshdns.testsupport.dns.LoopbackPorts;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The mesh as one node sees it: a packaged discovery-service of cluster {@code east} reading manifest folders
 * (no local cluster, VIPs in {@code <dir>/vips.txt}), and a packaged dns-service node of {@code east} following it
 * with the shared token, forwarding to a loopback port nobody serves ({@code 127.0.0.1:9}) so nothing leaves the
 * machine. Each test adds only the properties its scenario is about; {@link #close()} stops the node, then
 * discovery.
 *
 * <pre>
 * try (DiscoveryAndNode mesh = DiscoveryAndNode.in(dir, manifests, TOKEN)
 *         .node("meshdns.dns.locality.node-name", "node-1").start()) {
 *     mesh.dns().a("db.data.svc.cluster.local");
 * }
 * </pre>
 */
public final class DiscoveryAndNode implements AutoCloseable {
    private final Path dir;
    private final String token;
    private final Map<String, String> discoveryProperties = new LinkedHashMap<>();
    private final Map<String, String> nodeProperties = new LinkedHashMap<>();
    private ServiceProcess discovery;
    private ServiceProcess node;
    private int dnsPort;

    private DiscoveryAndNode(Path dir, Path manifests, String token) {
        this.dir = dir;
        this.token = token;
        discovery("meshdns.discovery.enabled-local-cluster", "false");
        discovery("meshdns.discovery.cluster-name", "east");
        discovery("meshdns.discovery.manifest-dirs", manifests.toString());
        discovery("meshdns.discovery.vip-file", dir.resolve("vips.txt").toString());
        discovery("meshdns.discovery.shared-token", token);
        node("meshdns.dns.upstreams", "127.0.0.1:9");
        node("meshdns.dns.discovery-token", token);
        node("meshdns.dns.cluster-name", "east");
    }

    /** Logs in {@code dir}; {@code manifests}: discovery's manifest folder (one sub-folder a cluster). */
    public static DiscoveryAndNode in(Path dir, Path manifests, String token) {
        return new DiscoveryAndNode(dir, manifests, token);
    }

    /** A discovery-service property beyond the shared ones (a later value for a key replaces the earlier). */
    public DiscoveryAndNode discovery(String key, String value) {
        discoveryProperties.put(key, value);
        return this;
    }

    /** A dns-service property beyond the shared ones (a later value for a key replaces the earlier). */
    public DiscoveryAndNode node(String key, String value) {
        nodeProperties.put(key, value);
        return this;
    }

    /** Starts discovery, waits until it is ready, then the node on a free DNS port; stops discovery if the node fails. */
    public DiscoveryAndNode start() {
        discovery = new ServiceProcess("discovery", "discovery-service", dir);
        discoveryProperties.forEach(discovery::property);
        discovery.start();
        try {
            dnsPort = LoopbackPorts.pick();
            node = new ServiceProcess("node", "dns-service", dir)
                    .property("meshdns.dns.port", String.valueOf(dnsPort))
                    .property("meshdns.dns.discovery-url", discovery.httpUrl());
            nodeProperties.forEach(node::property);
            node.start();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        return this;
    }

    public ServiceProcess discovery() {
        return discovery;
    }

    public ServiceProcess node() {
        return node;
    }

    public int dnsPort() {
        return dnsPort;
    }

    /** A stub resolver on the node's DNS port. */
    public Dns dns() {
        return new Dns(dnsPort);
    }

    /** GET on discovery's HTTP API with the shared token, the body whatever the status. */
    public String discoveryGet(String path) throws IOException, InterruptedException {
        return discovery.get(path, token).body();
    }

    /** The node's {@code /v1/explain} for a name and type (no token: loopback), the body whatever the status. */
    public String explain(String name, String type) throws IOException, InterruptedException {
        return node.get("/v1/explain?name=" + name + "&type=" + type, null, Duration.ofSeconds(10)).body();
    }

    @Override
    public void close() {
        if (node != null) node.close();
        if (discovery != null) discovery.close();
    }
}
