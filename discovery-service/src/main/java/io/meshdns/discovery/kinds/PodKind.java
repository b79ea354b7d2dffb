package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodIP;
import io.meshdns.discovery.config.DiscoveryConfig;
import io.meshdns.discovery.translate.IpLiterals;
import io.meshdns.discovery.translate.NamespacedObject;
import io.meshdns.discovery.translate.ObjectNames;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;

import java.util.ArrayList;
import java.util.List;

/** core/v1 Pod: pod records (verified mode) and a client IP's namespace. Read while {@code meshdns.discovery.watch-pods} is on. */
public final class PodKind implements KindDefinition {
    @Override
    public DiscoveryKind row() {
        return new DiscoveryKind(Kind.POD, "Pod", "pods", List.of("v1"), Pod.class,
                (c, version, resync) -> c.pods().inAnyNamespace().runnableInformer(resync),
                (cluster, o) -> translate(cluster, (Pod) o),
                new DiscoveryKind.Switch("meshdns.discovery.watch-pods", DiscoveryConfig::watchPods));
    }

    /** Pure: a pod entry with its IPs; skipped while it has none or once it finished. */
    public static Translation translate(String cluster, Pod pod) {
        NamespacedObject subject = NamespacedObject.of(cluster, Kind.POD, "Pod", pod, ObjectNames.Rule.DNS_1123_SUBDOMAIN);
        if (subject.nameProblem() != null) return subject.rejectName();
        var status = pod.getStatus();
        if (status == null) return subject.skip("no status yet");
        if ("Succeeded".equals(status.getPhase()) || "Failed".equals(status.getPhase())) {
            // A finished pod's IP may already belong to another pod.
            return subject.skip("pod phase " + status.getPhase());
        }
        List<String> ips = new ArrayList<>();
        if (status.getPodIPs() != null && !status.getPodIPs().isEmpty()) {
            for (PodIP ip : status.getPodIPs()) {
                if (ip.getIp() != null) ips.add(ip.getIp());
            }
        } else if (status.getPodIP() != null && !status.getPodIP().isEmpty()) {
            ips.add(status.getPodIP());
        }
        if (ips.isEmpty()) return subject.skip("no pod IP yet");
        for (String ip : ips) {
            if (!IpLiterals.isIp(ip)) return subject.reject("status.podIPs entry '" + ip + "' is not an IP address");
        }
        return new Translation.Accepted(new CatalogEntry.Pod(cluster, subject.namespace(), subject.name(), ips));
    }
}
