package io.meshdns.it.testing;

import io.meshdns.testsupport.dns.LoopbackPorts;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The mesh as one node sees it: a packaged discovery-service of cluster {@code east} reading manifest folders
 * (no local cluster, VIPs in {@code <dir>/vips.txt}), and a packaged dns-service node of {@code east} following it
 * with the shared token, forwarding to a loopback port nobody serves ({@code 127.0.0.1:9}) so nothing leaves the
 * machine. A test adds only the properties its scenario is about, on {@link #discovery()} and {@link #node()},
 * before {@link #start()}; {@link #close()} stops the node, then discovery.
 *
 * <pre>
 * try (DiscoveryAndNode mesh = new DiscoveryAndNode(dir, manifests, TOKEN)) {
 *     mesh.node().property("meshdns.dns.locality.node-name", "node-1");
 *     mesh.start();
 *     mesh.dns().a("db.data.svc.cluster.local");
 * }
 * </pre>
 */
public final class DiscoveryAndNode implements AutoCloseable {
    private final String token;
    private final ServiceProcess discovery;
    private final ServiceProcess node;
    private final int dnsPort = LoopbackPorts.pick();

    /** Logs in {@code dir}; {@code manifests}: discovery's manifest folder (one sub-folder a cluster). */
    public DiscoveryAndNode(Path dir, Path manifests, String token) {
        this.token = token;
        discovery = new ServiceProcess("discovery", "discovery-service", dir)
                .property("meshdns.discovery.enabled-local-cluster", "false")
                .property("meshdns.discovery.cluster-name", "east")
                .property("meshdns.discovery.manifest-dirs", manifests.toString())
                .property("meshdns.discovery.vip-file", dir.resolve("vips.txt").toString())
                .property("meshdns.discovery.shared-token", token);
        node = new ServiceProcess("node", "dns-service", dir)
                .property("meshdns.dns.port", String.valueOf(dnsPort))
                .property("meshdns.dns.upstreams", "127.0.0.1:9")
                .property("meshdns.dns.discovery-url", discovery.httpUrl())
                .property("meshdns.dns.discovery-token", token)
                .property("meshdns.dns.cluster-name", "east");
    }

    /** Starts discovery and waits until it is ready, then the node likewise. */
    public DiscoveryAndNode start() {
        discovery.start();
        node.start();
        return this;
    }

    public ServiceProcess discovery() {
        return discovery;
    }

    public ServiceProcess node() {
        return node;
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
        node.close();
        discovery.close();
    }
}
