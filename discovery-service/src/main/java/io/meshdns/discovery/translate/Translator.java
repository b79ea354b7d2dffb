package io.meshdns.discovery.translate;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pure translation of fabric8 objects into catalog entries, one function per kind: no I/O, no clock, no
 * state. The kind table ({@code kinds.DiscoveryKinds}) dispatches to them for informers and manifest files
 * alike, so a manifest means exactly what the same object in a cluster means.
 */
public final class Translator {
    public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
    /** Set by the EndpointSlice controller: when the change that produced this version of the slice happened. */
    public static final String LAST_CHANGE_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";
    public static final String ISTIO_GROUP = "networking.istio.io";
    public static final String MCS_GROUP = "multicluster.x-k8s.io";
    /** Istio's per-Service visibility annotation (comma-separated namespaces, {@code .} and {@code *}). */
    public static final String EXPORT_TO_ANNOTATION = "networking.istio.io/exportTo";
    /** Kubernetes DNS spec 2.1: every endpoint of such a Service counts as ready. */
    public static final String TOLERATE_UNREADY_ANNOTATION = "service.alpha.kubernetes.io/tolerate-unready-endpoints";
    /** Istio's opt-out of VIP auto-allocation for one ServiceEntry. */
    public static final String AUTOALLOCATE_LABEL = "networking.istio.io/enable-autoallocate-ip";
    private static final Set<String> RESOLUTIONS = Set.of("NONE", "STATIC", "DNS", "DNS_ROUND_ROBIN");

    private Translator() {
    }

    public static Translation namespace(String cluster, io.fabric8.kubernetes.api.model.Namespace ns) {
        String badName = ObjectNames.problem(ns, ObjectNames.Rule.DNS_1123_LABEL, false);
        if (badName != null) return rejected(null, "Namespace", cluster, ns, badName);
        String name = name(ns);
        return new Translation.Accepted(new CatalogEntry.Namespace(cluster, name));
    }

    public static Translation service(String cluster, io.fabric8.kubernetes.api.model.Service svc) {
        String badName = ObjectNames.problem(svc, ObjectNames.Rule.DNS_1035_LABEL, true);
        if (badName != null) return rejected(null, "Service", cluster, svc, badName);
        String name = name(svc);
        String ns = namespaceOf(svc);
        ObjectRef ref = new ObjectRef(cluster, Kind.SERVICE, ns, name);
        ServiceSpec spec = svc.getSpec();
        if (spec == null) return rejected(ref, "Service", cluster, svc, "spec is missing");
        ServiceType type;
        String rawType = spec.getType() == null ? "ClusterIP" : spec.getType();
        switch (rawType) {
            case "ClusterIP" -> type = ServiceType.CLUSTER_IP;
            case "NodePort" -> type = ServiceType.NODE_PORT;
            case "LoadBalancer" -> type = ServiceType.LOAD_BALANCER;
            case "ExternalName" -> type = ServiceType.EXTERNAL_NAME;
            default -> {
                return rejected(ref, "Service", cluster, svc, "spec.type '" + rawType + "' is not a Service type");
            }
        }
        List<String> ips = new ArrayList<>();
        String externalName = null;
        if (type == ServiceType.EXTERNAL_NAME) {
            externalName = spec.getExternalName();
            if (!IpLiterals.isHostName(externalName, false)) {
                return rejected(ref, "Service", cluster, svc, "spec.externalName '" + externalName + "' is not a DNS name");
            }
        } else {
            List<String> raw = spec.getClusterIPs() != null && !spec.getClusterIPs().isEmpty()
                    ? spec.getClusterIPs()
                    : spec.getClusterIP() == null ? List.of() : List.of(spec.getClusterIP());
            for (String ip : raw) {
                if (ip == null || ip.isEmpty() || "None".equals(ip)) continue;
                if (!IpLiterals.isIp(ip)) {
                    return rejected(ref, "Service", cluster, svc, "spec.clusterIPs entry '" + ip + "' is not an IP address");
                }
                ips.add(ip);
            }
        }
        List<PortSpec> ports = new ArrayList<>();
        if (spec.getPorts() != null) {
            for (ServicePort p : spec.getPorts()) {
                if (p.getPort() == null || p.getPort() < 1 || p.getPort() > 65535) {
                    return rejected(ref, "Service", cluster, svc, "spec.ports entry '" + p.getName() + "' has no valid port");
                }
                ports.add(new PortSpec(p.getName(), p.getProtocol(), p.getPort()));
            }
        }
        List<String> lb = new ArrayList<>();
        if (svc.getStatus() != null && svc.getStatus().getLoadBalancer() != null && svc.getStatus().getLoadBalancer().getIngress() != null) {
            for (LoadBalancerIngress in : svc.getStatus().getLoadBalancer().getIngress()) {
                if (in.getIp() != null && IpLiterals.isIp(in.getIp())) lb.add(in.getIp());
                else if (in.getHostname() != null && IpLiterals.isHostName(in.getHostname(), false)) lb.add(in.getHostname());
            }
        }
        Map<String, String> annotations = svc.getMetadata().getAnnotations() == null ? Map.of() : svc.getMetadata().getAnnotations();
        List<String> exportTo = splitExportTo(annotations.get(EXPORT_TO_ANNOTATION));
        boolean publishNotReady = Boolean.TRUE.equals(spec.getPublishNotReadyAddresses())
                || "true".equalsIgnoreCase(String.valueOf(annotations.get(TOLERATE_UNREADY_ANNOTATION)).trim());
        return new Translation.Accepted(new CatalogEntry.Service(cluster, ns, name, type, ips, externalName, ports, lb,
                exportTo, publishNotReady));
    }

    public static Translation endpointSlice(String cluster, io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice slice) {
        String badName = ObjectNames.problem(slice, ObjectNames.Rule.DNS_1123_SUBDOMAIN, true);
        if (badName != null) return rejected(null, "EndpointSlice", cluster, slice, badName);
        String name = name(slice);
        String ns = namespaceOf(slice);
        ObjectRef ref = new ObjectRef(cluster, Kind.ENDPOINT_SLICE, ns, name);
        Map<String, String> labels = slice.getMetadata().getLabels();
        String serviceName = labels == null ? null : labels.get(SERVICE_NAME_LABEL);
        if (serviceName == null || serviceName.isEmpty()) {
            return new Translation.Skipped(ref, "no " + SERVICE_NAME_LABEL + " label: not part of a Service");
        }
        String addressType = slice.getAddressType();
        if (!"IPv4".equals(addressType) && !"IPv6".equals(addressType) && !"FQDN".equals(addressType)) {
            return rejected(ref, "EndpointSlice", cluster, slice, "addressType '" + addressType + "' is not IPv4, IPv6 or FQDN");
        }
        List<EndpointAddress> endpoints = new ArrayList<>();
        if (slice.getEndpoints() != null) {
            for (Endpoint ep : slice.getEndpoints()) {
                List<String> addrs = ep.getAddresses() == null ? List.of() : ep.getAddresses();
                for (String a : addrs) {
                    boolean ok = switch (addressType) {
                        case "IPv4" -> IpLiterals.isIpv4(a);
                        case "IPv6" -> IpLiterals.isIpv6(a);
                        default -> IpLiterals.isHostName(a, false);
                    };
                    if (!ok) {
                        return rejected(ref, "EndpointSlice", cluster, slice, "endpoint address '" + a + "' is not a valid " + addressType + " address");
                    }
                }
                // The EndpointSlice API: a missing ready condition means ready.
                boolean ready = ep.getConditions() == null || ep.getConditions().getReady() == null || ep.getConditions().getReady();
                String podName = ep.getTargetRef() != null && "Pod".equals(ep.getTargetRef().getKind()) ? ep.getTargetRef().getName() : null;
                List<String> forZones = new ArrayList<>();
                if (ep.getHints() != null && ep.getHints().getForZones() != null) {
                    for (var z : ep.getHints().getForZones()) if (z != null && z.getName() != null) forZones.add(z.getName());
                }
                endpoints.add(new EndpointAddress(addrs, ep.getHostname(), ready, ep.getNodeName(), podName, ep.getZone(), forZones));
            }
        }
        List<PortSpec> ports = new ArrayList<>();
        if (slice.getPorts() != null) {
            for (EndpointPort p : slice.getPorts()) {
                // A slice port without a number means "all ports"; it gives no SRV record.
                if (p.getPort() == null) continue;
                if (p.getPort() < 1 || p.getPort() > 65535) {
                    return rejected(ref, "EndpointSlice", cluster, slice, "port " + p.getPort() + " is out of range");
                }
                ports.add(new PortSpec(p.getName(), p.getProtocol(), p.getPort()));
            }
        }
        // When the change behind this slice happened at the API server: the nodes measure how long it took to answer it.
        String triggered = slice.getMetadata().getAnnotations() == null ? null
                : slice.getMetadata().getAnnotations().get(LAST_CHANGE_TRIGGER_TIME);
        return new Translation.Accepted(new CatalogEntry.EndpointSlice(cluster, ns, name, serviceName, addressType, endpoints, ports,
                triggered));
    }

    public static Translation pod(String cluster, io.fabric8.kubernetes.api.model.Pod pod) {
        String badName = ObjectNames.problem(pod, ObjectNames.Rule.DNS_1123_SUBDOMAIN, true);
        if (badName != null) return rejected(null, "Pod", cluster, pod, badName);
        String name = name(pod);
        String ns = namespaceOf(pod);
        ObjectRef ref = new ObjectRef(cluster, Kind.POD, ns, name);
        var status = pod.getStatus();
        if (status == null) return new Translation.Skipped(ref, "no status yet");
        if ("Succeeded".equals(status.getPhase()) || "Failed".equals(status.getPhase())) {
            // A finished pod's IP may already belong to another pod.
            return new Translation.Skipped(ref, "pod phase " + status.getPhase());
        }
        List<String> ips = new ArrayList<>();
        if (status.getPodIPs() != null && !status.getPodIPs().isEmpty()) {
            for (PodIP ip : status.getPodIPs()) {
                if (ip.getIp() != null) ips.add(ip.getIp());
            }
        } else if (status.getPodIP() != null && !status.getPodIP().isEmpty()) {
            ips.add(status.getPodIP());
        }
        if (ips.isEmpty()) return new Translation.Skipped(ref, "no pod IP yet");
        for (String ip : ips) {
            if (!IpLiterals.isIp(ip)) return rejected(ref, "Pod", cluster, pod, "status.podIPs entry '" + ip + "' is not an IP address");
        }
        return new Translation.Accepted(new CatalogEntry.Pod(cluster, ns, name, ips));
    }

    /** networking.istio.io ServiceEntry (v1 or v1beta1; the spec is the same). */
    public static Translation serviceEntry(String cluster, GenericKubernetesResource se) {
        String badName = ObjectNames.problem(se, ObjectNames.Rule.DNS_1123_SUBDOMAIN, true);
        if (badName != null) return rejected(null, "ServiceEntry", cluster, se, badName);
        String name = name(se);
        String ns = namespaceOf(se);
        ObjectRef ref = new ObjectRef(cluster, Kind.SERVICE_ENTRY, ns, name);
        Object specObj = se.getAdditionalProperties().get("spec");
        if (!(specObj instanceof Map<?, ?> spec)) return rejected(ref, "ServiceEntry", cluster, se, "spec is missing or not an object");

        Object hostsObj = spec.get("hosts");
        if (hostsObj == null) return rejected(ref, "ServiceEntry", cluster, se, "spec.hosts is missing");
        if (!(hostsObj instanceof List<?> hostList)) return rejected(ref, "ServiceEntry", cluster, se, "spec.hosts is not a list");
        if (hostList.isEmpty()) return rejected(ref, "ServiceEntry", cluster, se, "spec.hosts is empty");
        List<String> hosts = new ArrayList<>();
        for (Object h : hostList) {
            if (!(h instanceof String host) || !IpLiterals.isHostName(host, true)) {
                return rejected(ref, "ServiceEntry", cluster, se, "spec.hosts entry '" + h + "' is not a DNS name");
            }
            hosts.add(host.toLowerCase(java.util.Locale.ROOT));
        }

        List<String> addresses = new ArrayList<>();
        Object addrObj = spec.get("addresses");
        if (addrObj != null) {
            if (!(addrObj instanceof List<?> addrList)) return rejected(ref, "ServiceEntry", cluster, se, "spec.addresses is not a list");
            for (Object a : addrList) {
                if (!(a instanceof String addr)) return rejected(ref, "ServiceEntry", cluster, se, "spec.addresses entry '" + a + "' is not a string");
                String ip = addr;
                int slash = addr.indexOf('/');
                if (slash >= 0) {
                    ip = addr.substring(0, slash);
                    int bits;
                    try {
                        bits = Integer.parseInt(addr.substring(slash + 1));
                    } catch (NumberFormatException e) {
                        return rejected(ref, "ServiceEntry", cluster, se, "spec.addresses entry '" + addr + "' has a bad prefix length");
                    }
                    int max = IpLiterals.isIpv4(ip) ? 32 : 128;
                    if (!IpLiterals.isIp(ip) || bits < 0 || bits > max) {
                        return rejected(ref, "ServiceEntry", cluster, se, "spec.addresses entry '" + addr + "' is not an IP address or CIDR");
                    }
                    // A wider CIDR is valid for Istio (it matches traffic) but names no single address to answer.
                    if (bits != max) continue;
                } else if (!IpLiterals.isIp(ip)) {
                    return rejected(ref, "ServiceEntry", cluster, se, "spec.addresses entry '" + addr + "' is not an IP address");
                }
                addresses.add(ip);
            }
        }

        Object resObj = spec.get("resolution");
        String resolution = resObj == null ? "NONE" : String.valueOf(resObj);
        if (!RESOLUTIONS.contains(resolution)) {
            return rejected(ref, "ServiceEntry", cluster, se, "spec.resolution '" + resolution + "' is not one of " + RESOLUTIONS);
        }

        List<String> endpointAddresses = new ArrayList<>();
        Object epObj = spec.get("endpoints");
        if (epObj != null) {
            if (!(epObj instanceof List<?> epList)) return rejected(ref, "ServiceEntry", cluster, se, "spec.endpoints is not a list");
            for (Object e : epList) {
                if (!(e instanceof Map<?, ?> ep)) return rejected(ref, "ServiceEntry", cluster, se, "spec.endpoints entry is not an object");
                Object address = ep.get("address");
                // Hostname and unix:// endpoints are valid but are resolved by the proxy, not by us.
                if (address instanceof String s && IpLiterals.isIp(s)) endpointAddresses.add(s);
            }
        }

        List<PortSpec> ports = new ArrayList<>();
        Object portsObj = spec.get("ports");
        if (portsObj != null) {
            if (!(portsObj instanceof List<?> portList)) return rejected(ref, "ServiceEntry", cluster, se, "spec.ports is not a list");
            for (Object p : portList) {
                if (!(p instanceof Map<?, ?> port)) return rejected(ref, "ServiceEntry", cluster, se, "spec.ports entry is not an object");
                Integer number = asPort(port.get("number"));
                if (number == null) return rejected(ref, "ServiceEntry", cluster, se, "spec.ports entry has no valid number: " + port.get("number"));
                Object pn = port.get("name");
                ports.add(new PortSpec(pn == null ? "" : String.valueOf(pn), transportOf(port.get("protocol")), number));
            }
        }
        List<String> exportTo = new ArrayList<>();
        Object exportObj = spec.get("exportTo");
        if (exportObj != null) {
            if (!(exportObj instanceof List<?> exportList)) return rejected(ref, "ServiceEntry", cluster, se, "spec.exportTo is not a list");
            for (Object x : exportList) {
                if (!(x instanceof String scope) || scope.isBlank()) {
                    return rejected(ref, "ServiceEntry", cluster, se, "spec.exportTo entry '" + x + "' is not a namespace, '.' or '*'");
                }
                exportTo.add(scope.trim());
            }
        }
        Map<String, String> labels = se.getMetadata().getLabels() == null ? Map.of() : se.getMetadata().getLabels();
        boolean optOut = "false".equalsIgnoreCase(String.valueOf(labels.get(AUTOALLOCATE_LABEL)).trim());
        // Istio's precedence among entries naming one host counts from creationTimestamp: carried as the API gave it.
        String created = se.getMetadata().getCreationTimestamp();
        return new Translation.Accepted(new CatalogEntry.ServiceEntry(cluster, ns, name, hosts, addresses, resolution,
                endpointAddresses, ports, Map.of(), statusAddresses(se, hosts), exportTo, optOut, created));
    }

    /**
     * Istio's auto-allocated addresses ({@code status.addresses: [{host, value}]}, IPv4 and IPv6), by host (lower
     * case), for the entry's own hosts only. A value that is not an IP literal is skipped: the status is Istio's
     * to write, and a bad one must not cost the entry its spec.
     */
    static Map<String, List<String>> statusAddresses(GenericKubernetesResource se, List<String> hosts) {
        Object statusObj = se.getAdditionalProperties().get("status");
        if (!(statusObj instanceof Map<?, ?> status) || !(status.get("addresses") instanceof List<?> list)) return Map.of();
        Map<String, List<String>> out = new java.util.TreeMap<>();
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> a) || !(a.get("value") instanceof String value) || !(a.get("host") instanceof String host)) continue;
            String h = host.toLowerCase(java.util.Locale.ROOT);
            String ip = value.trim();
            int slash = ip.indexOf('/');
            if (slash >= 0) ip = ip.substring(0, slash); // Istio writes bare addresses; tolerate a host-length prefix
            if (!hosts.contains(h) || !IpLiterals.isIp(ip)) continue;
            List<String> ips = out.computeIfAbsent(h, k -> new ArrayList<>());
            if (!ips.contains(ip)) ips.add(ip);
        }
        out.replaceAll((k, v) -> List.copyOf(v));
        return out;
    }

    /** {@code networking.istio.io/exportTo: "., istio-system"} → [".", "istio-system"]; absent → []. */
    static List<String> splitExportTo(String annotation) {
        if (annotation == null || annotation.isBlank()) return List.of();
        List<String> out = new ArrayList<>();
        for (String part : annotation.split(",")) {
            if (!part.isBlank()) out.add(part.trim());
        }
        return out;
    }

    /** multicluster.x-k8s.io/v1alpha1 ServiceImport. */
    public static Translation serviceImport(String cluster, GenericKubernetesResource si) {
        String badName = ObjectNames.problem(si, ObjectNames.Rule.DNS_1035_LABEL, true);
        if (badName != null) return rejected(null, "ServiceImport", cluster, si, badName);
        String name = name(si);
        String ns = namespaceOf(si);
        ObjectRef ref = new ObjectRef(cluster, Kind.SERVICE_IMPORT, ns, name);
        Object specObj = si.getAdditionalProperties().get("spec");
        if (!(specObj instanceof Map<?, ?> spec)) return rejected(ref, "ServiceImport", cluster, si, "spec is missing or not an object");
        Object typeObj = spec.get("type");
        String type = typeObj == null ? "ClusterSetIP" : String.valueOf(typeObj);
        if (!"ClusterSetIP".equals(type) && !"Headless".equals(type)) {
            return rejected(ref, "ServiceImport", cluster, si, "spec.type '" + type + "' is not ClusterSetIP or Headless");
        }
        List<String> ips = new ArrayList<>();
        Object ipsObj = spec.get("ips");
        if (ipsObj != null) {
            if (!(ipsObj instanceof List<?> ipList)) return rejected(ref, "ServiceImport", cluster, si, "spec.ips is not a list");
            for (Object ip : ipList) {
                if (!(ip instanceof String s) || !IpLiterals.isIp(s)) {
                    return rejected(ref, "ServiceImport", cluster, si, "spec.ips entry '" + ip + "' is not an IP address");
                }
                ips.add(s);
            }
        }
        List<PortSpec> ports = new ArrayList<>();
        Object portsObj = spec.get("ports");
        if (portsObj instanceof List<?> portList) {
            for (Object p : portList) {
                if (!(p instanceof Map<?, ?> port)) return rejected(ref, "ServiceImport", cluster, si, "spec.ports entry is not an object");
                Integer number = asPort(port.get("port"));
                if (number == null) return rejected(ref, "ServiceImport", cluster, si, "spec.ports entry has no valid port: " + port.get("port"));
                Object pn = port.get("name");
                Object proto = port.get("protocol");
                ports.add(new PortSpec(pn == null ? "" : String.valueOf(pn), proto == null ? null : String.valueOf(proto), number));
            }
        } else if (portsObj != null) {
            return rejected(ref, "ServiceImport", cluster, si, "spec.ports is not a list");
        }
        return new Translation.Accepted(new CatalogEntry.ServiceImport(cluster, ns, name, type, ips, ports));
    }

    /**
     * The ref an object of {@code kind} has (or had): used for deletes, which must not depend on the object being
     * valid. Null without a name.
     */
    public static ObjectRef refOf(String cluster, Kind kind, HasMetadata obj) {
        String name = name(obj);
        if (name == null) return null;
        return new ObjectRef(cluster, kind, kind == Kind.NAMESPACE ? "" : namespaceOf(obj), name);
    }

    private static String transportOf(Object istioProtocol) {
        // Istio's protocols are application protocols; DNS SRV only needs the transport.
        String p = istioProtocol == null ? "TCP" : String.valueOf(istioProtocol).toUpperCase(java.util.Locale.ROOT);
        return switch (p) {
            case "UDP" -> "UDP";
            case "SCTP" -> "SCTP";
            default -> "TCP";
        };
    }

    private static Integer asPort(Object o) {
        long n;
        if (o instanceof Number num) {
            n = num.longValue();
        } else if (o instanceof String s) {
            try {
                n = Long.parseLong(s);
            } catch (NumberFormatException e) {
                return null;
            }
        } else {
            return null;
        }
        return n >= 1 && n <= 65535 ? (int) n : null;
    }

    private static String name(HasMetadata o) {
        if (o.getMetadata() == null) return null;
        String n = o.getMetadata().getName();
        return n == null || n.isEmpty() ? null : n;
    }

    private static String namespaceOf(HasMetadata o) {
        String ns = o.getMetadata() == null ? null : o.getMetadata().getNamespace();
        // Manifests often omit the namespace; kubectl would apply them to "default".
        return ns == null || ns.isEmpty() ? "default" : ns;
    }

    private static Translation rejected(ObjectRef ref, String kind, String cluster, HasMetadata o, String reason) {
        String id = ref != null ? ref.toString() : kind + " " + cluster + "/" + (o.getMetadata() == null ? "?" : o.getMetadata().getNamespace() + "/?");
        return new Translation.Rejected(ref, kind + " " + id, reason);
    }
}
