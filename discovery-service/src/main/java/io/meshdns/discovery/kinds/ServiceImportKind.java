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

/**
 * The MCS API's multicluster.x-k8s.io ServiceImport: the clusterset.local names. A custom resource, watched once its
 * CRD is served; read while {@code meshdns.discovery.watch-service-imports} is on.
 */
public final class ServiceImportKind implements KindDefinition {
    public static final String MCS_GROUP = "multicluster.x-k8s.io";

    @Override
    public DiscoveryKind row() {
        return DiscoveryKind.customResource(Kind.SERVICE_IMPORT, "ServiceImport", "serviceimports", List.of(MCS_GROUP + "/v1alpha1"),
                ServiceImportKind::translate,
                new DiscoveryKind.Switch("meshdns.discovery.watch-service-imports", DiscoveryConfig::watchServiceImports));
    }

    /** multicluster.x-k8s.io/v1alpha1 ServiceImport. */
    public static Translation translate(String cluster, GenericKubernetesResource si) {
        NamespacedObject subject = NamespacedObject.of(cluster, Kind.SERVICE_IMPORT, "ServiceImport", si, ObjectNames.Rule.DNS_1035_LABEL);
        if (subject.nameProblem() != null) return subject.rejectName();
        Object specObj = si.getAdditionalProperties().get("spec");
        if (!(specObj instanceof Map<?, ?> spec)) return subject.reject("spec is missing or not an object");
        Object typeObj = spec.get("type");
        String type = typeObj == null ? "ClusterSetIP" : String.valueOf(typeObj);
        if (!"ClusterSetIP".equals(type) && !"Headless".equals(type)) {
            return subject.reject("spec.type '" + type + "' is not ClusterSetIP or Headless");
        }
        List<String> ips = new ArrayList<>();
        Object ipsObj = spec.get("ips");
        if (ipsObj != null) {
            if (!(ipsObj instanceof List<?> ipList)) return subject.reject("spec.ips is not a list");
            for (Object ip : ipList) {
                if (!(ip instanceof String s) || !IpLiterals.isIp(s)) {
                    return subject.reject("spec.ips entry '" + ip + "' is not an IP address");
                }
                ips.add(s);
            }
        }
        List<PortSpec> ports = new ArrayList<>();
        Object portsObj = spec.get("ports");
        if (portsObj instanceof List<?> portList) {
            for (Object p : portList) {
                if (!(p instanceof Map<?, ?> port)) return subject.reject("spec.ports entry is not an object");
                Integer number = CustomFields.port(port.get("port"));
                if (number == null) return subject.reject("spec.ports entry has no valid port: " + port.get("port"));
                Object pn = port.get("name");
                Object proto = port.get("protocol");
                ports.add(new PortSpec(pn == null ? "" : String.valueOf(pn), proto == null ? null : String.valueOf(proto), number));
            }
        } else if (portsObj != null) {
            return subject.reject("spec.ports is not a list");
        }
        return new Translation.Accepted(new CatalogEntry.ServiceImport(cluster, subject.namespace(), subject.name(), type, ips, ports));
    }
}
