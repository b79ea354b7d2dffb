package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.meshdns.discovery.translate.IpLiterals;
import io.meshdns.discovery.translate.NamespacedObject;
import io.meshdns.discovery.translate.ObjectNames;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.Kind;
import io.meshdns.model.PortSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** discovery.k8s.io/v1 EndpointSlice: a Service's endpoints (headless records, SRV, readiness, zones). Always read. */
public final class EndpointSliceKind implements KindDefinition {
    public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
    /** Set by the EndpointSlice controller: when the change that produced this version of the slice happened. */
    public static final String LAST_CHANGE_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time";

    @Override
    public DiscoveryKind row() {
        return new DiscoveryKind(Kind.ENDPOINT_SLICE, "EndpointSlice", "endpointslices", List.of("discovery.k8s.io/v1"), EndpointSlice.class,
                (c, version, resync) -> c.discovery().v1().endpointSlices().inAnyNamespace().runnableInformer(resync),
                (cluster, o) -> translate(cluster, (EndpointSlice) o), null);
    }

    /** Pure: a slice entry; skipped when no Service owns it; rejected on an address that is not of its type. */
    public static Translation translate(String cluster, EndpointSlice slice) {
        NamespacedObject subject = NamespacedObject.of(cluster, Kind.ENDPOINT_SLICE, "EndpointSlice", slice,
                ObjectNames.Rule.DNS_1123_SUBDOMAIN);
        if (subject.nameProblem() != null) return subject.rejectName();
        Map<String, String> labels = slice.getMetadata().getLabels();
        String serviceName = labels == null ? null : labels.get(SERVICE_NAME_LABEL);
        if (serviceName == null || serviceName.isEmpty()) {
            return subject.skip("no " + SERVICE_NAME_LABEL + " label: not part of a Service");
        }
        String addressType = slice.getAddressType();
        if (!"IPv4".equals(addressType) && !"IPv6".equals(addressType) && !"FQDN".equals(addressType)) {
            return subject.reject("addressType '" + addressType + "' is not IPv4, IPv6 or FQDN");
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
                        return subject.reject("endpoint address '" + a + "' is not a valid " + addressType + " address");
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
                    return subject.reject("port " + p.getPort() + " is out of range");
                }
                ports.add(new PortSpec(p.getName(), p.getProtocol(), p.getPort()));
            }
        }
        // When the change behind this slice happened at the API server: the nodes measure how long it took to answer it.
        String triggered = slice.getMetadata().getAnnotations() == null ? null
                : slice.getMetadata().getAnnotations().get(LAST_CHANGE_TRIGGER_TIME);
        return new Translation.Accepted(new CatalogEntry.EndpointSlice(cluster, subject.namespace(), subject.name(), serviceName,
                addressType, endpoints, ports, triggered));
    }
}
