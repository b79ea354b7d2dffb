package io.meshdns.it.testing;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The packaged exposure-service as the end-to-end tests run it: watching Services on a (mock) Kubernetes API and
 * publishing them with policy sync through the builtin provider, RFC 2136 with the TSIG key {@code exposure}
 * (hmac-sha256), into one dynamic zone of a packaged dns-service; plus the NSM-style Service it publishes.
 */
public final class BuiltinExposure {
    private BuiltinExposure() {
    }

    /**
     * exposure-service's properties; the caller adds the HTTP ones. Leader election is off (one replica), the
     * resync interval and debounce short so a change shows within seconds.
     */
    public static Map<String, String> properties(String ownerId, int dnsPort, String domain, String tsigSecret, String kubernetesUrl) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("meshdns.exposure.policy", "sync");
        p.put("meshdns.exposure.owner-id", ownerId);
        p.put("meshdns.exposure.provider", "builtin");
        p.put("meshdns.exposure.builtin.targets", "127.0.0.1:" + dnsPort);
        p.put("meshdns.exposure.rfc2136.zones", domain);
        p.put("meshdns.exposure.rfc2136.tsig-key-name", "exposure");
        p.put("meshdns.exposure.rfc2136.tsig-secret", tsigSecret);
        p.put("meshdns.exposure.rfc2136.tsig-algorithm", "hmac-sha256");
        p.put("meshdns.exposure.default-domain", domain);
        p.put("meshdns.exposure.domain-filters", domain);
        p.put("meshdns.exposure.sources", "service");
        p.put("meshdns.exposure.interval", "2s");
        p.put("meshdns.exposure.debounce", "200ms");
        p.put("meshdns.exposure.leader-election.enabled", "false");
        p.put("quarkus.kubernetes-client.master-url", kubernetesUrl);
        p.put("quarkus.kubernetes-client.trust-certs", "true");
        p.put("quarkus.kubernetes-client.devservices.enabled", "false");
        return p;
    }

    /**
     * NSM's registry as a LoadBalancer Service in {@code nsm-system}, annotated for exposure with an SRV record
     * for its {@code registry} port (5002/TCP), its load balancer at {@code loadBalancerIp}.
     */
    public static Service nsmRegistry(String loadBalancerIp) {
        return new ServiceBuilder()
                .withNewMetadata().withName("registry").withNamespace("nsm-system")
                .addToAnnotations("meshdns.io/expose", "true")
                .addToAnnotations("meshdns.io/srv-port", "registry")
                .endMetadata()
                .withNewSpec().withType("LoadBalancer")
                .addNewPort().withName("registry").withPort(5002).withProtocol("TCP").endPort()
                .endSpec()
                .withNewStatus().withNewLoadBalancer().addNewIngress().withIp(loadBalancerIp).endIngress().endLoadBalancer().endStatus()
                .build();
    }
}
