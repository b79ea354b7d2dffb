package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.discovery.translate.CustomFields;
import io.meshdns.discovery.translate.IpLiterals;
import io.meshdns.discovery.translate.NamespacedObject;
import io.meshdns.discovery.translate.ObjectNames;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import io.meshdns.model.PortSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Istio's networking.istio.io ServiceEntry: hosts outside the cluster's names, with their addresses. A custom resource,
 * watched once its CRD is served; read while {@code meshdns.discovery.watch-service-entries} is on.
 */
public final class ServiceEntryKind implements KindDefinition {
    public static final String ISTIO_GROUP = "networking.istio.io";
    /** Istio's opt-out of VIP auto-allocation for one ServiceEntry. */
    public static final String AUTOALLOCATE_LABEL = "networking.istio.io/enable-autoallocate-ip";
    private static final Set<String> RESOLUTIONS = Set.of("NONE", "STATIC", "DNS", "DNS_ROUND_ROBIN");

    @Override
    public DiscoveryKind row() {
        return DiscoveryKind.customResource(Kind.SERVICE_ENTRY, "ServiceEntry", "serviceentries",
                // Istio serves ServiceEntry as v1 since 1.22; older meshes only have v1beta1.
                List.of(ISTIO_GROUP + "/v1", ISTIO_GROUP + "/v1beta1"), ServiceEntryKind::translate,
                new DiscoveryKind.Switch("meshdns.discovery.watch-service-entries", DiscoveryConfig::watchServiceEntries));
    }

    /** networking.istio.io ServiceEntry (v1 or v1beta1; the spec is the same). */
    public static Translation translate(String cluster, GenericKubernetesResource se) {
        NamespacedObject subject = NamespacedObject.of(cluster, Kind.SERVICE_ENTRY, "ServiceEntry", se, ObjectNames.Rule.DNS_1123_SUBDOMAIN);
        if (subject.nameProblem() != null) return subject.rejectName();
        Object specObj = se.getAdditionalProperties().get("spec");
        if (!(specObj instanceof Map<?, ?> spec)) return subject.reject("spec is missing or not an object");

        Object hostsObj = spec.get("hosts");
        if (hostsObj == null) return subject.reject("spec.hosts is missing");
        if (!(hostsObj instanceof List<?> hostList)) return subject.reject("spec.hosts is not a list");
        if (hostList.isEmpty()) return subject.reject("spec.hosts is empty");
        List<String> hosts = new ArrayList<>();
        for (Object h : hostList) {
            if (!(h instanceof String host) || !IpLiterals.isHostName(host, true)) {
                return subject.reject("spec.hosts entry '" + h + "' is not a DNS name");
            }
            hosts.add(host.toLowerCase(java.util.Locale.ROOT));
        }

        List<String> addresses = new ArrayList<>();
        Object addrObj = spec.get("addresses");
        if (addrObj != null) {
            if (!(addrObj instanceof List<?> addrList)) return subject.reject("spec.addresses is not a list");
            for (Object a : addrList) {
                if (!(a instanceof String addr)) return subject.reject("spec.addresses entry '" + a + "' is not a string");
                String ip = addr;
                int slash = addr.indexOf('/');
                if (slash >= 0) {
                    ip = addr.substring(0, slash);
                    int bits;
                    try {
                        bits = Integer.parseInt(addr.substring(slash + 1));
                    } catch (NumberFormatException e) {
                        return subject.reject("spec.addresses entry '" + addr + "' has a bad prefix length");
                    }
                    int max = IpLiterals.isIpv4(ip) ? 32 : 128;
                    if (!IpLiterals.isIp(ip) || bits < 0 || bits > max) {
                        return subject.reject("spec.addresses entry '" + addr + "' is not an IP address or CIDR");
                    }
                    // A wider CIDR is valid for Istio (it matches traffic) but names no single address to answer.
                    if (bits != max) continue;
                } else if (!IpLiterals.isIp(ip)) {
                    return subject.reject("spec.addresses entry '" + addr + "' is not an IP address");
                }
                addresses.add(ip);
            }
        }

        Object resObj = spec.get("resolution");
        String resolution = resObj == null ? "NONE" : String.valueOf(resObj);
        if (!RESOLUTIONS.contains(resolution)) {
            return subject.reject("spec.resolution '" + resolution + "' is not one of " + RESOLUTIONS);
        }

        List<String> endpointAddresses = new ArrayList<>();
        Object epObj = spec.get("endpoints");
        if (epObj != null) {
            if (!(epObj instanceof List<?> epList)) return subject.reject("spec.endpoints is not a list");
            for (Object e : epList) {
                if (!(e instanceof Map<?, ?> ep)) return subject.reject("spec.endpoints entry is not an object");
                Object address = ep.get("address");
                // Hostname and unix:// endpoints are valid but are resolved by the proxy, not by us.
                if (address instanceof String s && IpLiterals.isIp(s)) endpointAddresses.add(s);
            }
        }

        List<PortSpec> ports = new ArrayList<>();
        Object portsObj = spec.get("ports");
        if (portsObj != null) {
            if (!(portsObj instanceof List<?> portList)) return subject.reject("spec.ports is not a list");
            for (Object p : portList) {
                if (!(p instanceof Map<?, ?> port)) return subject.reject("spec.ports entry is not an object");
                Integer number = CustomFields.port(port.get("number"));
                if (number == null) return subject.reject("spec.ports entry has no valid number: " + port.get("number"));
                Object pn = port.get("name");
                ports.add(new PortSpec(pn == null ? "" : String.valueOf(pn), transportOf(port.get("protocol")), number));
            }
        }
        List<String> exportTo = new ArrayList<>();
        Object exportObj = spec.get("exportTo");
        if (exportObj != null) {
            if (!(exportObj instanceof List<?> exportList)) return subject.reject("spec.exportTo is not a list");
            for (Object x : exportList) {
                if (!(x instanceof String scope) || scope.isBlank()) {
                    return subject.reject("spec.exportTo entry '" + x + "' is not a namespace, '.' or '*'");
                }
                exportTo.add(scope.trim());
            }
        }
        Map<String, String> labels = se.getMetadata().getLabels() == null ? Map.of() : se.getMetadata().getLabels();
        boolean optOut = "false".equalsIgnoreCase(String.valueOf(labels.get(AUTOALLOCATE_LABEL)).trim());
        // Istio's precedence among entries naming one host counts from creationTimestamp: carried as the API gave it.
        String created = se.getMetadata().getCreationTimestamp();
        return new Translation.Accepted(new CatalogEntry.ServiceEntry(cluster, subject.namespace(), subject.name(), hosts, addresses,
                resolution, endpointAddresses, ports, Map.of(), statusAddresses(se, hosts), exportTo, optOut, created));
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

    private static String transportOf(Object istioProtocol) {
        // Istio's protocols are application protocols; DNS SRV only needs the transport.
        String p = istioProtocol == null ? "TCP" : String.valueOf(istioProtocol).toUpperCase(java.util.Locale.ROOT);
        return switch (p) {
            case "UDP" -> "UDP";
            case "SCTP" -> "SCTP";
            default -> "TCP";
        };
    }
}
