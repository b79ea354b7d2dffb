package io.meshdns.exposure.source.istio;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.SourceSettings;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** istio-serviceentry: where a ServiceEntry's hosts point, when it is not published, and the Problems it raises. */
class IstioServiceEntrySourceTest {

    static final String KEY = " serviceentry/shop/payments";

    /** A ServiceEntry shop/payments; each argument is YAML for that field, "" to leave it out. */
    static String se(String hosts, String addresses, String resolution, String location, String endpoints, String exportTo, String status,
                     String annotations) {
        var spec = new StringBuilder("hosts: [" + hosts + "]");
        if (!addresses.isEmpty()) spec.append(", addresses: [").append(addresses).append(']');
        if (!resolution.isEmpty()) spec.append(", resolution: ").append(resolution);
        if (!location.isEmpty()) spec.append(", location: ").append(location);
        if (!endpoints.isEmpty()) spec.append(", endpoints: [").append(endpoints).append(']');
        if (!exportTo.isEmpty()) spec.append(", exportTo: [").append(exportTo).append(']');
        spec.append(", ports: [{number: 443, name: https, protocol: TLS}]");
        return """
                apiVersion: networking.istio.io/v1
                kind: ServiceEntry
                metadata: {name: payments, namespace: shop, annotations: {%s}}
                spec: {%s}
                status: {addresses: [%s]}
                ---
                """.formatted(annotations, spec, status);
    }

    static String allocated(String hosts, String status) {
        return se(hosts, "", "DNS", "", "", "", status, "");
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("the VIP Istio allocated (status.addresses)", allocated("api.pay.example",
                        "{value: 240.240.0.1, host: api.pay.example}"), Set.of("api.pay.example A 240.240.0.1" + KEY)),
                Arguments.of("allocated VIPs per host, v4 and v6", allocated("api.pay.example, web.pay.example",
                                "{value: 240.240.0.1, host: api.pay.example}, {value: \"2001:2::1\", host: api.pay.example}, {value: 240.240.0.2, host: web.pay.example}"),
                        Set.of("api.pay.example A 240.240.0.1" + KEY, "api.pay.example AAAA 2001:2::1" + KEY, "web.pay.example A 240.240.0.2" + KEY)),
                Arguments.of("status.addresses before spec.addresses", se("api.pay.example", "192.0.2.10", "STATIC", "", "{address: 192.0.2.20}", "",
                        "{value: 240.240.0.1, host: api.pay.example}", ""), Set.of("api.pay.example A 240.240.0.1" + KEY)),
                Arguments.of("spec.addresses before STATIC endpoints; a /32 is its address, a wider CIDR no target",
                        se("api.pay.example", "192.0.2.10/32, 10.0.0.0/24", "STATIC", "", "{address: 192.0.2.20}", "", "", ""),
                        Set.of("api.pay.example A 192.0.2.10" + KEY)),
                Arguments.of("STATIC endpoints' IP addresses when nothing else (a socket is no target)",
                        se("api.pay.example", "", "STATIC", "", "{address: 192.0.2.21}, {address: 192.0.2.20}, {address: \"unix:///var/run/sock\"}", "", "", ""),
                        Set.of("api.pay.example A 192.0.2.20,192.0.2.21" + KEY)),
                Arguments.of("DNS resolution endpoints are names, not targets", se("api.pay.example", "", "DNS", "", "{address: pay.upstream.example}", "", "", ""),
                        Set.of()),
                Arguments.of("a wildcard host with an address is published", se("\"*.pay.example\"", "192.0.2.30", "NONE", "", "", "", "", ""),
                        Set.of("*.pay.example A 192.0.2.30" + KEY)),
                Arguments.of("a wildcard host without an address: a Problem, the other host is published",
                        allocated("\"*.pay.example\", api.pay.example", "{value: 240.240.0.1, host: api.pay.example}"),
                        Set.of("api.pay.example A 240.240.0.1" + KEY, "PROBLEM serviceentry/shop/payments WildcardWithoutTarget false")),
                Arguments.of("a host in the cluster zone: a Problem, the other host is published",
                        se("payments.shop.svc.cluster.local, api.pay.example", "192.0.2.40", "STATIC", "", "", "", "", ""),
                        Set.of("api.pay.example A 192.0.2.40" + KEY, "PROBLEM serviceentry/shop/payments HostInClusterZone false")),
                Arguments.of("MESH_INTERNAL is not published", se("api.pay.example", "192.0.2.40", "STATIC", "MESH_INTERNAL", "", "", "", ""), Set.of()),
                Arguments.of("MESH_INTERNAL with meshdns.io/publish-mesh-internal", se("api.pay.example", "192.0.2.40", "STATIC", "MESH_INTERNAL", "", "", "",
                        "meshdns.io/publish-mesh-internal: \"true\""), Set.of("api.pay.example A 192.0.2.40" + KEY)),
                Arguments.of("exportTo * is published", se("api.pay.example", "192.0.2.40", "", "", "", "\"*\"", "", ""),
                        Set.of("api.pay.example A 192.0.2.40" + KEY)),
                Arguments.of("exportTo . is kept to its namespace", se("api.pay.example", "192.0.2.40", "", "", "", "\".\"", "", ""), Set.of()),
                Arguments.of("exportTo some namespaces is kept to them", se("api.pay.example", "192.0.2.40", "", "", "", "shop, web", "", ""), Set.of()),
                Arguments.of("the target annotation replaces the addresses", se("api.pay.example", "192.0.2.40", "", "", "", "", "",
                        "external-dns.kubernetes.io/target: edge.pay.example"), Set.of("api.pay.example CNAME edge.pay.example" + KEY)),
                Arguments.of("hostname and ttl annotations", se("api.pay.example", "192.0.2.40", "", "", "", "", "",
                                "external-dns.kubernetes.io/hostname: alias.pay.example, external-dns.kubernetes.io/ttl: 5m"),
                        Set.of("api.pay.example 300 A 192.0.2.40" + KEY, "alias.pay.example 300 A 192.0.2.40" + KEY)),
                Arguments.of("another controller's", se("api.pay.example", "192.0.2.40", "", "", "", "", "",
                        "external-dns.kubernetes.io/controller: someone-else"), Set.of()),
                Arguments.of("no address anywhere: no record, no Problem", allocated("api.pay.example", ""), Set.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void serviceEntry(String title, String docs, Set<String> expected) {
        TreeSet<String> got = IstioSourcesTest.run("istio-serviceentry", docs);
        // a problem line also says whether the plan keeps the object's records: these reasons must not (they would stay stale)
        var out = new ObjectTranslation(List.of(new IstioServiceEntrySource()), new SourceSettings(Optional.empty(), false, Optional.empty()),
                Set.of("istio-serviceentry")).translate(IstioSourcesTest.parse(docs));
        out.problems().forEach(p -> {
            got.remove("PROBLEM " + p.resourceKey() + " " + p.reason());
            got.add("PROBLEM " + p.resourceKey() + " " + p.reason() + " " + p.keepsRecords());
        });
        assertEquals(expected, got, title);
    }
}
