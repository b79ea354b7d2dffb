package io.meshdns.exposure.source;

import io.meshdns.exposure.endpoint.Endpoint;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Collects endpoints and problems while sources translate objects. Not thread-safe: one per pass. */
public final class SourceOutput {

    private final List<Endpoint> endpoints = new ArrayList<>();
    private final List<Problem> problems = new ArrayList<>();

    public List<Endpoint> endpoints() {
        return endpoints;
    }

    public List<Problem> problems() {
        return problems;
    }

    public void problem(HasMetadata obj, String kind, String reason, String message) {
        var m = obj.getMetadata();
        problems.add(new Problem(kind, obj.getApiVersion() == null ? "v1" : obj.getApiVersion(), m.getNamespace(),
                m.getName(), m.getUid(), reason, message));
    }

    /**
     * Adds endpoints at {@code hostname} for mixed targets: IPv4 → A, IPv6 → AAAA, host names → one
     * CNAME (a CNAME has one target: the smallest name wins, as the plan's tie-break does).
     */
    public void addTargets(String hostname, List<String> targets, long ttl, String resource) {
        var v4 = new TreeSet<String>();
        var v6 = new TreeSet<String>();
        var names = new TreeSet<String>();
        for (String t : targets) {
            if (Endpoint.isIpLiteral(t)) {
                (t.contains(":") ? v6 : v4).add(t);
            } else {
                names.add(Endpoint.normalizeName(t));
            }
        }
        Map<String, String> labels = Map.of(Endpoint.RESOURCE_LABEL, resource);
        if (!v4.isEmpty()) endpoints.add(new Endpoint(hostname, "A", List.copyOf(v4), ttl, labels, ""));
        if (!v6.isEmpty()) endpoints.add(new Endpoint(hostname, "AAAA", List.copyOf(v6), ttl, labels, ""));
        if (!names.isEmpty() && v4.isEmpty() && v6.isEmpty()) {
            endpoints.add(new Endpoint(hostname, "CNAME", List.of(names.first()), ttl, labels, ""));
        }
    }

    /**
     * What an object's annotations add to the endpoints it produced (those from index {@code first}):
     * {@code meshdns.io/shared} marks them shared, ExternalDNS's {@code coredns-group} (any {@code coredns-*}) becomes
     * their {@code coredns/group} property, and ExternalDNS's {@code record-type: ptr} adds a
     * PTR record at the reverse name of every A/AAAA target, pointing at the names that hold it.
     */
    public void finishObject(int first, Map<String, String> annotations, long ttl) {
        var properties = new java.util.TreeMap<>(Annotations.corednsProperties(annotations));
        if ("true".equalsIgnoreCase(String.valueOf(annotations.get(Annotations.SHARED)).trim())) properties.put(Annotations.SHARED, "true");
        boolean ptr = Annotations.get(annotations, Annotations.RECORD_TYPE).map(v -> v.trim().equalsIgnoreCase("ptr")).orElse(false);
        var produced = new ArrayList<>(endpoints.subList(first, endpoints.size()));
        if (!properties.isEmpty()) {
            for (int i = first; i < endpoints.size(); i++) {
                Endpoint e = endpoints.get(i);
                var ps = new java.util.TreeMap<>(e.providerSpecific());
                ps.putAll(properties);
                endpoints.set(i, e.withProviderSpecific(ps));
            }
        }
        if (ptr) {
            var names = new java.util.TreeMap<String, TreeSet<String>>();
            String resource = "";
            for (Endpoint e : produced) {
                if (!e.recordType().equals("A") && !e.recordType().equals("AAAA")) continue;
                resource = e.resource();
                for (String ip : e.targets()) names.computeIfAbsent(reverseName(ip), k -> new TreeSet<>()).add(e.dnsName());
            }
            for (var r : names.entrySet()) {
                endpoints.add(new Endpoint(r.getKey(), "PTR", List.copyOf(r.getValue()), ttl, Map.of(Endpoint.RESOURCE_LABEL, resource), ""));
            }
        }
    }

    /** in-addr.arpa / ip6.arpa name of an address literal (canonical form assumed). */
    static String reverseName(String ip) {
        try {
            byte[] b = java.net.InetAddress.getByName(ip).getAddress();
            var sb = new StringBuilder();
            if (b.length == 4) {
                for (int i = 3; i >= 0; i--) sb.append(b[i] & 0xff).append('.');
                return sb.append("in-addr.arpa").toString();
            }
            for (int i = b.length - 1; i >= 0; i--) {
                sb.append(Character.forDigit(b[i] & 0xf, 16)).append('.').append(Character.forDigit((b[i] >> 4) & 0xf, 16)).append('.');
            }
            return sb.append("ip6.arpa").toString();
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("not an address: " + ip, e);
        }
    }

    public Desired toDesired() {
        Set<String> errored = new TreeSet<>();
        problems.forEach(p -> {
            if (p.keepsRecords()) errored.add(p.resourceKey());
        });
        return new Desired(endpoints, errored);
    }
}
