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

    public Desired toDesired() {
        Set<String> errored = new TreeSet<>();
        problems.forEach(p -> errored.add(p.resourceKey()));
        return new Desired(endpoints, errored);
    }
}
