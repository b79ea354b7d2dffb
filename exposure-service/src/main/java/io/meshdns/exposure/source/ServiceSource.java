package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.meshdns.exposure.endpoint.Endpoint;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Service → endpoints (pure: the caller passes the objects, usually from informer caches).
 *
 * <ul>
 *   <li>Considered when it has a hostname annotation, {@code meshdns.io/expose: "true"}, or an
 *       fqdn-template is configured (ExternalDNS's annotation filter).</li>
 *   <li>LoadBalancer: status.loadBalancer.ingress IPs → A/AAAA, host names → CNAME.</li>
 *   <li>NodePort: every node's ExternalIPs (InternalIP when a node has none) → A/AAAA, plus
 *       ExternalDNS's SRV {@code _<port name>._<proto>.<host>} = "0 50 nodePort host".</li>
 *   <li>ClusterIP: the cluster IPs, only with meshdns.exposure.publish-cluster-ip=true.</li>
 *   <li>Headless (clusterIP None): the ready endpoint addresses of its EndpointSlices.</li>
 *   <li>internal-hostname: the cluster IPs at those names, whatever the type.</li>
 *   <li>target annotation: replaces the targets found above.</li>
 *   <li>{@code meshdns.io/srv-port}: SRV at each hostname itself (NSM's plain-name lookup)
 *       "0 0 port host", port = the LoadBalancer/ClusterIP port or the NodePort's nodePort.</li>
 * </ul>
 * An invalid annotation is reported as a {@link Problem}; the object's other records are still produced.
 */
@Singleton
public final class ServiceSource extends AbstractSource {

    public static final WatchedKind SERVICES = WatchedKind.builtIn(Service.class, "", "v1", "Service", "services", true);
    public static final WatchedKind NODES = WatchedKind.builtIn(Node.class, "", "v1", "Node", "nodes", false);
    public static final WatchedKind ENDPOINT_SLICES =
            WatchedKind.builtIn(EndpointSlice.class, "discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", true);

    /** Only for {@link #translate(Service, List, List, SourceOutput)}; a pass passes its own in the context. */
    private final SourceSettings settings;

    /** The bean: settings come with each pass's {@link SourceContext}. */
    public ServiceSource() {
        this(new SourceSettings(Optional.empty(), false, Optional.empty()));
    }

    public ServiceSource(SourceSettings settings) {
        super("service", SERVICES, NODES, ENDPOINT_SLICES);
        this.settings = settings;
    }

    @Override
    public void translate(HasMetadata object, SourceContext context, SourceOutput out) {
        Service svc = (Service) object;
        Map<String, List<EndpointSlice>> slices = context.index("service/slices-by-service", ServiceSource::slicesByService);
        translate(context.settings(), svc, context.objects(NODES),
                slices.getOrDefault(svc.getMetadata().getNamespace() + "/" + svc.getMetadata().getName(), List.of()), out);
    }

    private static Map<String, List<EndpointSlice>> slicesByService(SourceContext context) {
        var out = new HashMap<String, List<EndpointSlice>>();
        for (EndpointSlice s : context.<EndpointSlice>objects(ENDPOINT_SLICES)) {
            Map<String, String> labels = s.getMetadata().getLabels();
            String svc = labels == null ? null : labels.get("kubernetes.io/service-name");
            if (svc != null) out.computeIfAbsent(s.getMetadata().getNamespace() + "/" + svc, k -> new ArrayList<>()).add(s);
        }
        return out;
    }

    /** One Service with the settings this instance was built with. */
    public void translate(Service svc, List<Node> nodes, List<EndpointSlice> slices, SourceOutput out) {
        translate(settings, svc, nodes, slices, out);
    }

    private void translate(SourceSettings settings, Service svc, List<Node> nodes, List<EndpointSlice> slices, SourceOutput out) {
        var meta = svc.getMetadata();
        Map<String, String> ann = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
        String ns = meta.getNamespace();
        String name = meta.getName();
        String resource = SourceNames.resourceKey("Service", ns, name);

        if (Annotations.forOtherController(ann)) return;
        int first = out.endpoints().size();
        var hostnames = new LinkedHashSet<String>(Annotations.list(ann, Annotations.HOSTNAME));
        List<String> internal = Annotations.list(ann, Annotations.INTERNAL_HOSTNAME);
        boolean expose = Annotations.expose(ann);
        if (hostnames.isEmpty() && expose) {
            if (settings.defaultDomain().isEmpty()) {
                out.problem(svc, "Service", Problem.INVALID_ANNOTATION,
                        Annotations.EXPOSE + " is set but meshdns.exposure.default-domain is not configured");
            } else {
                hostnames.add(name + "." + ns + "." + settings.defaultDomain().get());
            }
        }
        List<String> named = FqdnTemplate.names(settings, svc, "Service", hostnames, out);
        hostnames.clear();
        hostnames.addAll(named);
        if (hostnames.isEmpty() && internal.isEmpty()) return;

        long ttl = ttl(svc, "Service", ann, out);
        var validHosts = new ArrayList<String>();
        for (String h : hostnames) {
            try {
                validHosts.add(Endpoint.normalizeHostName(h));
            } catch (IllegalArgumentException e) {
                out.problem(svc, "Service", Problem.INVALID_ANNOTATION, "hostname '" + h + "': " + e.getMessage());
            }
        }

        String type = Optional.ofNullable(svc.getSpec().getType()).orElse("ClusterIP");
        boolean headless = "None".equals(svc.getSpec().getClusterIP());
        List<String> targets = switch (type) {
            case "LoadBalancer" -> loadBalancerTargets(svc);
            case "NodePort" -> nodeTargets(nodes, Annotations.get(ann, Annotations.ACCESS).orElse(""));
            case "ExternalName" -> Optional.ofNullable(svc.getSpec().getExternalName()).map(List::of).orElse(List.of());
            default -> headless ? headlessTargets(slices, nodes, Annotations.get(ann, Annotations.ENDPOINTS_TYPE).orElse(""))
                    : (settings.publishClusterIp() ? clusterIps(svc) : List.of());
        };
        List<String> override = Annotations.list(ann, Annotations.TARGET);
        if (!override.isEmpty()) {
            var ok = new ArrayList<String>();
            for (String t : override) {
                try {
                    ok.add(Endpoint.isIpLiteral(t) ? Endpoint.normalizeTarget(t.contains(":") ? "AAAA" : "A", t)
                            : Endpoint.normalizeTarget("CNAME", t));
                } catch (IllegalArgumentException e) {
                    out.problem(svc, "Service", Problem.INVALID_ANNOTATION, "target '" + t + "': " + e.getMessage());
                }
            }
            targets = ok;
        }
        for (String h : validHosts) {
            out.addTargets(h, targets, ttl, resource);
        }
        // as ExternalDNS: the target annotation replaces the targets of internal-hostname names too
        List<String> internalTargets = override.isEmpty() ? clusterIps(svc) : targets;
        for (String h : internal) {
            try {
                out.addTargets(Endpoint.normalizeHostName(h), internalTargets, ttl, resource);
            } catch (IllegalArgumentException e) {
                out.problem(svc, "Service", Problem.INVALID_ANNOTATION, "internal-hostname '" + h + "': " + e.getMessage());
            }
        }
        if ("NodePort".equals(type) && !targets.isEmpty()) {
            for (String h : validHosts) {
                for (ServicePort p : ports(svc)) {
                    if (p.getNodePort() == null) continue;
                    String portLabel = p.getName() == null || p.getName().isEmpty() ? String.valueOf(p.getPort()) : p.getName();
                    String proto = Optional.ofNullable(p.getProtocol()).orElse("TCP").toLowerCase(Locale.ROOT);
                    out.endpoints().add(new Endpoint("_" + portLabel + "._" + proto + "." + h, "SRV",
                            List.of("0 50 " + p.getNodePort() + " " + h), ttl, Map.of(Endpoint.RESOURCE_LABEL, resource), ""));
                }
            }
        }
        Optional<String> srvPort = Optional.ofNullable(ann.get(Annotations.SRV_PORT)).map(String::trim);
        if (srvPort.isPresent() && !validHosts.isEmpty()) {
            Optional<Integer> port = srvPort(svc, type, srvPort.get());
            if (port.isEmpty()) {
                out.problem(svc, "Service", Problem.INVALID_ANNOTATION, Annotations.SRV_PORT + " '" + srvPort.get()
                        + "' names no port of this Service" + ("NodePort".equals(type) ? " with a nodePort" : ""));
            } else {
                for (String h : validHosts) {
                    out.endpoints().add(new Endpoint(h, "SRV", List.of("0 0 " + port.get() + " " + h), ttl,
                            Map.of(Endpoint.RESOURCE_LABEL, resource), ""));
                }
            }
        }
        out.finishObject(first, ann, ttl);
    }

    private static long ttl(io.fabric8.kubernetes.api.model.HasMetadata obj, String kind, Map<String, String> ann, SourceOutput out) {
        Optional<String> raw = Annotations.get(ann, Annotations.TTL);
        if (raw.isEmpty()) return 0;
        try {
            return Annotations.parseTtl(raw.get());
        } catch (IllegalArgumentException e) {
            out.problem(obj, kind, Problem.INVALID_ANNOTATION, e.getMessage() + "; using the default TTL");
            return 0;
        }
    }

    public static long ttlOf(io.fabric8.kubernetes.api.model.HasMetadata obj, String kind, Map<String, String> ann, SourceOutput out) {
        return ttl(obj, kind, ann, out);
    }

    private static List<ServicePort> ports(Service svc) {
        return svc.getSpec().getPorts() == null ? List.of() : svc.getSpec().getPorts();
    }

    private static Optional<Integer> srvPort(Service svc, String type, String wanted) {
        for (ServicePort p : ports(svc)) {
            boolean match = wanted.equals(p.getName()) || wanted.equals(String.valueOf(p.getPort()));
            if (!match) continue;
            if ("NodePort".equals(type)) return Optional.ofNullable(p.getNodePort());
            return Optional.ofNullable(p.getPort());
        }
        return Optional.empty();
    }

    static List<String> loadBalancerTargets(List<LoadBalancerIngress> ingress) {
        var out = new ArrayList<String>();
        if (ingress == null) return out;
        for (LoadBalancerIngress i : ingress) {
            if (i.getIp() != null && !i.getIp().isBlank()) out.add(i.getIp());
            else if (i.getHostname() != null && !i.getHostname().isBlank()) out.add(i.getHostname());
        }
        return out;
    }

    private static List<String> loadBalancerTargets(Service svc) {
        if (svc.getStatus() == null || svc.getStatus().getLoadBalancer() == null) return List.of();
        return loadBalancerTargets(svc.getStatus().getLoadBalancer().getIngress());
    }

    /** access=public: ExternalIPs only; access=private: InternalIPs only; unset: ExternalIPs, InternalIPs where a node has none. */
    private static List<String> nodeTargets(List<Node> nodes, String access) {
        var out = new ArrayList<String>();
        for (Node n : nodes) {
            var ext = addresses(n, "ExternalIP");
            var in = addresses(n, "InternalIP");
            switch (access.trim().toLowerCase(Locale.ROOT)) {
                case "public" -> out.addAll(ext);
                case "private" -> out.addAll(in);
                default -> out.addAll(ext.isEmpty() ? in : ext);
            }
        }
        return out;
    }

    private static List<String> addresses(Node n, String type) {
        if (n.getStatus() == null || n.getStatus().getAddresses() == null) return List.of();
        return n.getStatus().getAddresses().stream().filter(a -> type.equals(a.getType())).map(NodeAddress::getAddress).toList();
    }

    /**
     * endpoints-type=NodeExternalIP: the ExternalIPs of the nodes the ready endpoints run on;
     * HostIP: those nodes' InternalIPs (a pod's hostIP is its node's InternalIP); unset: the endpoint addresses.
     */
    private static List<String> headlessTargets(List<EndpointSlice> slices, List<Node> nodes, String endpointsType) {
        String t = endpointsType.trim();
        if (!t.equalsIgnoreCase("NodeExternalIP") && !t.equalsIgnoreCase("HostIP")) return readyAddresses(slices);
        var byName = new java.util.HashMap<String, Node>();
        nodes.forEach(n -> byName.put(n.getMetadata().getName(), n));
        var out = new LinkedHashSet<String>();
        for (EndpointSlice s : slices) {
            if (s.getEndpoints() == null) continue;
            for (var e : s.getEndpoints()) {
                boolean ready = e.getConditions() == null || e.getConditions().getReady() == null || e.getConditions().getReady();
                Node node = e.getNodeName() == null ? null : byName.get(e.getNodeName());
                if (ready && node != null) out.addAll(addresses(node, t.equalsIgnoreCase("HostIP") ? "InternalIP" : "ExternalIP"));
            }
        }
        return List.copyOf(out);
    }

    private static List<String> clusterIps(Service svc) {
        var out = new ArrayList<String>();
        if (svc.getSpec().getClusterIPs() != null && !svc.getSpec().getClusterIPs().isEmpty()) out.addAll(svc.getSpec().getClusterIPs());
        else if (svc.getSpec().getClusterIP() != null) out.add(svc.getSpec().getClusterIP());
        out.removeIf(ip -> ip == null || ip.isBlank() || "None".equals(ip));
        return out;
    }

    private static List<String> readyAddresses(List<EndpointSlice> slices) {
        var out = new ArrayList<String>();
        for (EndpointSlice s : slices) {
            if (s.getEndpoints() == null) continue;
            for (var e : s.getEndpoints()) {
                boolean ready = e.getConditions() == null || e.getConditions().getReady() == null || e.getConditions().getReady();
                if (ready && e.getAddresses() != null) out.addAll(e.getAddresses());
            }
        }
        return out;
    }
}
