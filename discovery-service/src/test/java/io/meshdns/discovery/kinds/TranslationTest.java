package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.EndpointAddress;
import io.meshdns.model.PortSpec;
import io.meshdns.model.ServiceType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Table-driven, through the kind table: YAML as a user writes it in, translation (or the typed rejection) out. */
class TranslationTest {
    private static final KubernetesSerialization YAML = new KubernetesSerialization();

    static Stream<Arguments> accepted() {
        return Stream.of(
                Arguments.of("dual-stack ClusterIP service", """
                        apiVersion: v1
                        kind: Service
                        metadata: {name: web, namespace: shop}
                        spec:
                          clusterIP: 10.0.0.10
                          clusterIPs: [10.0.0.10, "fd00::a"]
                          ports: [{name: http, port: 80, protocol: TCP}, {name: dns, port: 53, protocol: UDP}]
                        """, new CatalogEntry.Service("east", "shop", "web", ServiceType.CLUSTER_IP,
                        List.of("10.0.0.10", "fd00::a"), null,
                        List.of(new PortSpec("http", "TCP", 80), new PortSpec("dns", "UDP", 53)), List.of())),
                Arguments.of("headless service, namespace defaults to default", """
                        apiVersion: v1
                        kind: Service
                        metadata: {name: db}
                        spec: {clusterIP: None, ports: [{port: 5432}]}
                        """, new CatalogEntry.Service("east", "default", "db", ServiceType.CLUSTER_IP, List.of(), null,
                        List.of(new PortSpec("", "TCP", 5432)), List.of())),
                Arguments.of("ExternalName service", """
                        apiVersion: v1
                        kind: Service
                        metadata: {name: ext, namespace: a}
                        spec: {type: ExternalName, externalName: api.example.com}
                        """, new CatalogEntry.Service("east", "a", "ext", ServiceType.EXTERNAL_NAME, List.of(), "api.example.com",
                        List.of(), List.of())),
                Arguments.of("LoadBalancer with ingress IP and hostname", """
                        apiVersion: v1
                        kind: Service
                        metadata: {name: gw, namespace: istio-system}
                        spec: {type: LoadBalancer, clusterIP: 10.0.0.20, ports: [{name: tls, port: 15443}]}
                        status: {loadBalancer: {ingress: [{ip: 203.0.113.7}, {hostname: lb.example.net}]}}
                        """, new CatalogEntry.Service("east", "istio-system", "gw", ServiceType.LOAD_BALANCER, List.of("10.0.0.20"), null,
                        List.of(new PortSpec("tls", "TCP", 15443)), List.of("203.0.113.7", "lb.example.net"))),
                Arguments.of("EndpointSlice with ready, not-ready and condition-less endpoints", """
                        apiVersion: discovery.k8s.io/v1
                        kind: EndpointSlice
                        metadata: {name: db-abc, namespace: default, labels: {kubernetes.io/service-name: db}}
                        addressType: IPv4
                        endpoints:
                        - {addresses: [10.1.0.5], hostname: db-0, conditions: {ready: true}, nodeName: n1, targetRef: {kind: Pod, name: db-0}}
                        - {addresses: [10.1.0.6], conditions: {ready: false}}
                        - {addresses: [10.1.0.7]}
                        ports: [{name: pg, port: 5432, protocol: TCP}, {name: all}]
                        """, new CatalogEntry.EndpointSlice("east", "default", "db-abc", "db", "IPv4", List.of(
                        new EndpointAddress(List.of("10.1.0.5"), "db-0", true, "n1", "db-0"),
                        new EndpointAddress(List.of("10.1.0.6"), null, false, null, null),
                        new EndpointAddress(List.of("10.1.0.7"), null, true, null, null)),
                        List.of(new PortSpec("pg", "TCP", 5432)))),
                Arguments.of("Namespace", """
                        apiVersion: v1
                        kind: Namespace
                        metadata: {name: shop}
                        """, new CatalogEntry.Namespace("east", "shop")),
                Arguments.of("running dual-stack Pod", """
                        apiVersion: v1
                        kind: Pod
                        metadata: {name: web-0, namespace: shop}
                        status: {phase: Running, podIP: 10.1.0.9, podIPs: [{ip: 10.1.0.9}, {ip: "fd00::9"}]}
                        """, new CatalogEntry.Pod("east", "shop", "web-0", List.of("10.1.0.9", "fd00::9"))),
                Arguments.of("ServiceEntry v1 with addresses, CIDR /32, wide CIDR, endpoints and ports", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata: {name: ext-api, namespace: istio-system}
                        spec:
                          hosts: [API.example.com, "*.svc.example.com"]
                          addresses: [192.0.2.10, 192.0.2.11/32, 198.51.100.0/24, "2001:db8::1"]
                          resolution: STATIC
                          endpoints: [{address: 192.0.2.100}, {address: backend.example.com}]
                          ports: [{number: 443, name: https, protocol: HTTPS}, {number: 53, name: dns, protocol: UDP}]
                        """, new CatalogEntry.ServiceEntry("east", "istio-system", "ext-api",
                        List.of("api.example.com", "*.svc.example.com"), List.of("192.0.2.10", "192.0.2.11", "2001:db8::1"),
                        "STATIC", List.of("192.0.2.100"),
                        List.of(new PortSpec("https", "TCP", 443), new PortSpec("dns", "UDP", 53)), Map.of())),
                Arguments.of("ServiceEntry v1beta1 without addresses or resolution", """
                        apiVersion: networking.istio.io/v1beta1
                        kind: ServiceEntry
                        metadata: {name: legacy, namespace: default}
                        spec: {hosts: [legacy.service.entry]}
                        """, new CatalogEntry.ServiceEntry("east", "default", "legacy", List.of("legacy.service.entry"), List.of(),
                        "NONE", List.of(), List.of(), Map.of())),
                Arguments.of("ServiceEntry with Istio's status.addresses, exportTo and the auto-allocation opt-out label", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata:
                          name: auto
                          namespace: shop
                          labels: {networking.istio.io/enable-autoallocate-ip: "false"}
                        spec: {hosts: [auto.example.com, other.example.com], resolution: DNS, exportTo: [".", istio-system]}
                        status:
                          addresses:
                          - {host: auto.example.com, value: 240.240.0.77}
                          - {host: auto.example.com, value: "2001:2::77"}
                          - {host: not-a-host-of-this-entry.example.com, value: 240.240.0.99}
                          - {host: other.example.com, value: not-an-ip}
                        """, new CatalogEntry.ServiceEntry("east", "shop", "auto", List.of("auto.example.com", "other.example.com"),
                        List.of(), "DNS", List.of(), List.of(), Map.of(),
                        Map.of("auto.example.com", List.of("240.240.0.77", "2001:2::77")), List.of(".", "istio-system"), true)),
                Arguments.of("Service with the exportTo annotation and tolerate-unready-endpoints", """
                        apiVersion: v1
                        kind: Service
                        metadata:
                          name: db
                          namespace: shop
                          annotations: {networking.istio.io/exportTo: ". , billing", service.alpha.kubernetes.io/tolerate-unready-endpoints: "true"}
                        spec: {clusterIP: None}
                        """, new CatalogEntry.Service("east", "shop", "db", ServiceType.CLUSTER_IP, List.of(), null, List.of(), List.of(),
                        List.of(".", "billing"), true)),
                Arguments.of("Service with publishNotReadyAddresses", """
                        apiVersion: v1
                        kind: Service
                        metadata: {name: db, namespace: shop}
                        spec: {clusterIP: None, publishNotReadyAddresses: true}
                        """, new CatalogEntry.Service("east", "shop", "db", ServiceType.CLUSTER_IP, List.of(), null, List.of(), List.of(),
                        List.of(), true)),
                Arguments.of("ServiceImport", """
                        apiVersion: multicluster.x-k8s.io/v1alpha1
                        kind: ServiceImport
                        metadata: {name: web, namespace: shop}
                        spec: {type: ClusterSetIP, ips: [10.9.0.1], ports: [{name: http, port: 80, protocol: TCP}]}
                        """, new CatalogEntry.ServiceImport("east", "shop", "web", "ClusterSetIP", List.of("10.9.0.1"),
                        List.of(new PortSpec("http", "TCP", 80)))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void translatesValidObjects(String name, String yaml, CatalogEntry expected) {
        Translation t = DiscoveryKinds.translate("east", parse(yaml));
        assertEquals(new Translation.Accepted(expected), t, name);
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                Arguments.of("ServiceEntry without hosts", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata: {name: bad, namespace: default}
                        spec: {addresses: [192.0.2.1]}
                        """, "spec.hosts is missing"),
                Arguments.of("ServiceEntry hosts not a list", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata: {name: bad, namespace: default}
                        spec: {hosts: api.example.com}
                        """, "spec.hosts is not a list"),
                Arguments.of("ServiceEntry empty hosts", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata: {name: bad, namespace: default}
                        spec: {hosts: []}
                        """, "spec.hosts is empty"),
                Arguments.of("ServiceEntry host not a name", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata: {name: bad, namespace: default}
                        spec: {hosts: ["api example com"]}
                        """, "is not a DNS name"),
                Arguments.of("ServiceEntry invalid IP in addresses", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata: {name: bad, namespace: default}
                        spec: {hosts: [a.example.com], addresses: [300.1.2.3]}
                        """, "'300.1.2.3' is not an IP address"),
                Arguments.of("ServiceEntry hostname in addresses (never resolved)", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata: {name: bad, namespace: default}
                        spec: {hosts: [a.example.com], addresses: [localhost]}
                        """, "'localhost' is not an IP address"),
                Arguments.of("ServiceEntry bad CIDR", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata: {name: bad, namespace: default}
                        spec: {hosts: [a.example.com], addresses: [10.0.0.0/33]}
                        """, "is not an IP address or CIDR"),
                Arguments.of("ServiceEntry unknown resolution", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata: {name: bad, namespace: default}
                        spec: {hosts: [a.example.com], resolution: MAGIC}
                        """, "spec.resolution 'MAGIC'"),
                Arguments.of("ServiceEntry port without number", """
                        apiVersion: networking.istio.io/v1
                        kind: ServiceEntry
                        metadata: {name: bad, namespace: default}
                        spec: {hosts: [a.example.com], ports: [{name: http}]}
                        """, "spec.ports entry has no valid number"),
                Arguments.of("Service with a bad ClusterIP", """
                        apiVersion: v1
                        kind: Service
                        metadata: {name: bad, namespace: default}
                        spec: {clusterIP: 10.0.0.256}
                        """, "is not an IP address"),
                Arguments.of("ExternalName without a name", """
                        apiVersion: v1
                        kind: Service
                        metadata: {name: bad, namespace: default}
                        spec: {type: ExternalName}
                        """, "spec.externalName"),
                Arguments.of("EndpointSlice with an IPv6 address in an IPv4 slice", """
                        apiVersion: discovery.k8s.io/v1
                        kind: EndpointSlice
                        metadata: {name: bad, namespace: default, labels: {kubernetes.io/service-name: db}}
                        addressType: IPv4
                        endpoints: [{addresses: ["fd00::1"]}]
                        """, "is not a valid IPv4 address"),
                Arguments.of("ServiceImport with a bad type", """
                        apiVersion: multicluster.x-k8s.io/v1alpha1
                        kind: ServiceImport
                        metadata: {name: bad, namespace: default}
                        spec: {type: Wrong}
                        """, "spec.type 'Wrong'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejected")
    void rejectsMalformedObjectsWithAReason(String name, String yaml, String reasonPart) {
        Translation t = DiscoveryKinds.translate("east", parse(yaml));
        Translation.Rejected r = assertInstanceOf(Translation.Rejected.class, t, name);
        assertTrue(r.reason().contains(reasonPart), name + ": " + r.reason());
        assertEquals("bad", r.ref().name());
    }

    static Stream<Arguments> skipped() {
        return Stream.of(
                Arguments.of("pending Pod without IP", """
                        apiVersion: v1
                        kind: Pod
                        metadata: {name: p, namespace: default}
                        status: {phase: Pending}
                        """),
                Arguments.of("finished Pod keeps no record", """
                        apiVersion: v1
                        kind: Pod
                        metadata: {name: p, namespace: default}
                        status: {phase: Succeeded, podIP: 10.1.0.1}
                        """),
                Arguments.of("EndpointSlice not owned by a Service", """
                        apiVersion: discovery.k8s.io/v1
                        kind: EndpointSlice
                        metadata: {name: p, namespace: default}
                        addressType: IPv4
                        endpoints: [{addresses: [10.1.0.1]}]
                        """));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("skipped")
    void skipsValidObjectsThatGiveNoRecords(String name, String yaml) {
        Translation t = DiscoveryKinds.translate("east", parse(yaml));
        assertInstanceOf(Translation.Skipped.class, t, name);
        assertEquals("p", t.ref().name());
    }

    private static HasMetadata parse(String yaml) {
        HasMetadata obj = YAML.unmarshal(yaml);
        if (obj instanceof GenericKubernetesResource || obj.getKind() != null) return obj;
        throw new IllegalStateException("unparsed " + yaml);
    }
}
