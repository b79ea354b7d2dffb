package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.meshdns.discovery.translate.IpLiterals;
import io.meshdns.discovery.translate.NamespacedObject;
import io.meshdns.discovery.translate.ObjectNames;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** core/v1 Service: the service names, their cluster IPs, ports and ExternalName targets. Always read. */
public final class ServiceKind implements KindDefinition {
    public static final String EXPORT_TO_ANNOTATION = "networking.istio.io/exportTo";
    /** Kubernetes DNS spec 2.1: every endpoint of such a Service counts as ready. */
    public static final String TOLERATE_UNREADY_ANNOTATION = "service.alpha.kubernetes.io/tolerate-unready-endpoints";

    @Override
    public DiscoveryKind row() {
        return new DiscoveryKind(Kind.SERVICE, "Service", "services", List.of("v1"), Service.class,
                (c, version, resync) -> c.services().inAnyNamespace().runnableInformer(resync),
                (cluster, o) -> translate(cluster, (Service) o), null);
    }

    /** Pure: a Service entry (type, IPs, ports, load-balancer ingress, exportTo, publishNotReady), or its rejection. */
    public static Translation translate(String cluster, Service svc) {
        NamespacedObject subject = NamespacedObject.of(cluster, Kind.SERVICE, "Service", svc, ObjectNames.Rule.DNS_1035_LABEL);
        if (subject.nameProblem() != null) return subject.rejectName();
        ServiceSpec spec = svc.getSpec();
        if (spec == null) return subject.reject("spec is missing");
        ServiceType type;
        String rawType = spec.getType() == null ? "ClusterIP" : spec.getType();
        switch (rawType) {
            case "ClusterIP" -> type = ServiceType.CLUSTER_IP;
            case "NodePort" -> type = ServiceType.NODE_PORT;
            case "LoadBalancer" -> type = ServiceType.LOAD_BALANCER;
            case "ExternalName" -> type = ServiceType.EXTERNAL_NAME;
            default -> {
                return subject.reject("spec.type '" + rawType + "' is not a Service type");
            }
        }
        List<String> ips = new ArrayList<>();
        String externalName = null;
        if (type == ServiceType.EXTERNAL_NAME) {
            externalName = spec.getExternalName();
            if (!IpLiterals.isHostName(externalName, false)) {
                return subject.reject("spec.externalName '" + externalName + "' is not a DNS name");
            }
        } else {
            List<String> raw = spec.getClusterIPs() != null && !spec.getClusterIPs().isEmpty()
                    ? spec.getClusterIPs()
                    : spec.getClusterIP() == null ? List.of() : List.of(spec.getClusterIP());
            for (String ip : raw) {
                if (ip == null || ip.isEmpty() || "None".equals(ip)) continue;
                if (!IpLiterals.isIp(ip)) {
                    return subject.reject("spec.clusterIPs entry '" + ip + "' is not an IP address");
                }
                ips.add(ip);
            }
        }
        List<PortSpec> ports = new ArrayList<>();
        if (spec.getPorts() != null) {
            for (ServicePort p : spec.getPorts()) {
                if (p.getPort() == null || p.getPort() < 1 || p.getPort() > 65535) {
                    return subject.reject("spec.ports entry '" + p.getName() + "' has no valid port");
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
        return new Translation.Accepted(new CatalogEntry.Service(cluster, subject.namespace(), subject.name(), type, ips, externalName,
                ports, lb, exportTo, publishNotReady));
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
}
