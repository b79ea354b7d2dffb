package io.meshdns.dns.operator;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Outcome;
import io.meshdns.dns.answer.QueryContext;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.discovery.DiscoveryRecordSource;
import io.meshdns.dns.kubernetes.ClusterHealthPolicy;
import io.meshdns.dns.kubernetes.HostPrecedence;
import io.meshdns.dns.server.RequestHandler;
import io.meshdns.dns.server.RequestProcessor;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.snapshot.SnapshotStore;
import io.meshdns.dns.snapshot.ZoneIndex;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogEntry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The explanation behind {@code GET /v1/explain} ({@link ExplainEndpoint}, which bounds and authorises the call): the
 * query answered by the real query path as {@code client} asks it (over the TCP path, so the UDP memo is left alone),
 * the rule the answer path reports ({@link Outcome.Rule}) and the detail read beside it: which source holds the zone,
 * the catalog entries behind a mesh name, gateway health and locality, the placeholder address. Blocking: the endpoint
 * runs it off the event loop.
 */
@ApplicationScoped
public class Explainer {
    @Inject
    RequestProcessor processor;

    @Inject
    SnapshotStore store;

    @Inject
    Instance<DiscoveryRecordSource> discovery;

    @Inject
    io.meshdns.dns.kubernetes.MeshNaming naming;

    public Map<String, Object> explain(String rawName, int type, String client) throws Exception {
        Name name;
        try {
            name = Name.fromString(rawName.endsWith(".") ? rawName : rawName + ".");
        } catch (TextParseException e) {
            throw new IllegalArgumentException("not a domain name: " + rawName);
        }
        Snapshot snapshot = store.current();
        Message query = Message.newQuery(Record.newRecord(name, type, DClass.IN));
        CompletableFuture<RequestHandler.Reply> answer = new CompletableFuture<>();
        ClientInfo asker = new ClientInfo(client, 0, client.contains(":"), Transport.TCP);
        processor.process(query.toWire(), asker, wire -> { }, answer::complete);
        RequestHandler.Reply reply = answer.get(5, TimeUnit.SECONDS);
        Message response = reply.response();
        String clientNamespace = new QueryContext(snapshot, asker, query).clientNamespace();

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name.toString());
        out.put("type", Type.string(type));
        out.put("client", client);
        if (clientNamespace != null) out.put("clientNamespace", clientNamespace);
        out.put("rcode", Rcode.string(response.getRcode()));
        List<String> records = new ArrayList<>();
        for (Record r : response.getSection(Section.ANSWER)) records.add(r.toString());
        out.put("answer", records);
        out.put("snapshotVersion", snapshot.version());
        String order = localityNote(snapshot, naming.settings().locality(), name, type);
        if (order != null) out.put("order", order);

        List<Map<String, String>> sources = new ArrayList<>();
        ZoneIndex zone = snapshot.findZone(name);
        String rule;
        String why = null;
        out.put("answerRule", reply.rule().name());
        if (reply.rule() == Outcome.Rule.FORWARDED) {
            rule = "forwarded";
            why = "not in a zone this node serves: sent to the upstreams (meshdns.dns.upstreams or a zone forward); the answer is cached now";
        } else if (reply.rule() == Outcome.Rule.FORWARDED_CACHED) {
            rule = "forwarded, cached";
            why = "not in a zone this node serves: answered from the forwarding cache, no upstream asked";
        } else if (reply.rule() == Outcome.Rule.AUTOPATH) {
            List<Record> chain = response.getSection(Section.ANSWER);
            rule = "autopath";
            why = "a search-path expansion from a pod in namespace " + clientNamespace + ", answered in one round trip: CNAME to "
                    + (chain.isEmpty() ? "?" : ((org.xbill.DNS.CNAMERecord) chain.get(0)).getTarget());
        } else if (reply.rule() == Outcome.Rule.NOT_EXPORTED) {
            rule = "not exported";
            why = "the name exists but is not exported to the client's namespace " + (clientNamespace == null ? "(no pod: no namespace)" : clientNamespace)
                    + " (exportTo): answered as if it did not exist";
            if (zone != null) out.put("zone", zone.origin().toString());
        } else if (reply.rule() == Outcome.Rule.WILDCARD_HOST) {
            rule = "ServiceEntry wildcard host";
            why = "under a wildcard ServiceEntry host, answered with its addresses";
        } else if (reply.rule() == Outcome.Rule.MESH_SYNTHESIZED && snapshot.mesh().exportRestricted()
                && !snapshot.mesh().visible(name, clientNamespace)) {
            rule = "placeholder";
            why = "the name exists but is not exported to the client's namespace " + (clientNamespace == null ? "(no pod: no namespace)" : clientNamespace)
                    + " (exportTo): answered as if it did not exist, so the placeholder (meshdns.dns.placeholder.ipv4)";
        } else if (reply.rule() == Outcome.Rule.PROTOCOL) {
            rule = "protocol";
            why = "a protocol-level answer (" + Rcode.string(response.getRcode()) + ")";
        } else if (zone == null) { // a name served outside any zone: the mesh's overlay (ServiceEntry hosts)
            MeshReason mesh = mesh(name, null, response, records);
            out.put("zoneSource", "discovery (overlay)");
            rule = mesh.rule;
            why = mesh.why;
            sources.addAll(mesh.sources);
        } else {
            String sourceId = store.sourceOfZone(zone.origin());
            out.put("zone", zone.origin().toString());
            out.put("zoneSource", sourceId);
            if (sourceId != null && sourceId.startsWith("discovery:")) {
                MeshReason mesh = mesh(name, zone, response, records);
                rule = mesh.rule;
                why = mesh.why;
                sources.addAll(mesh.sources);
            } else if (sourceId != null && sourceId.startsWith("zone-file:")) {
                rule = "zone file";
                why = "from " + sourceId.substring("zone-file:".length());
            } else if (sourceId != null && sourceId.startsWith("hosts")) {
                rule = "hosts file";
                why = "from " + sourceId;
            } else if (sourceId != null && sourceId.startsWith("dynamic")) {
                rule = "dynamic zone";
                why = "written with RFC 2136 UPDATE (for example by exposure-service) into " + zone.origin();
            } else {
                rule = "zone";
                why = sourceId == null ? "an overlay or compiled zone" : "from " + sourceId;
            }
            if (response.getRcode() == Rcode.NXDOMAIN && why == null) why = "no such name in " + zone.origin();
        }
        out.put("rule", rule);
        if (why != null) out.put("why", why);
        out.put("sources", sources);
        return out;
    }

    private record MeshReason(String rule, String why, List<Map<String, String>> sources) {
    }

    /** A name of a zone compiled from the discovery catalog: which entries stand behind the answer. */
    private MeshReason mesh(Name name, ZoneIndex zone, Message response, List<String> records) {
        Catalog catalog = discovery.isResolvable() ? discovery.get().catalog() : null;
        String fqdn = name.toString(true).toLowerCase(Locale.ROOT);
        List<Map<String, String>> sources = new ArrayList<>();
        String placeholder = placeholder();
        boolean placeholderAnswer = placeholder != null && records.stream().anyMatch(r -> r.endsWith("\t" + placeholder));
        if (catalog != null) {
            List<CatalogEntry.ServiceEntry> claims = new ArrayList<>();
            for (CatalogEntry e : catalog.values()) {
                if (e instanceof CatalogEntry.ServiceEntry se && se.hosts().stream().anyMatch(h -> h.equalsIgnoreCase(fqdn))) claims.add(se);
            }
            if (!claims.isEmpty()) {
                return serviceEntryHost(catalog, fqdn, claims, records, sources);
            }
        }
        String[] labels = fqdn.split("\\.");
        String clusterDomain = naming.settings().clusterDomain().toString(true).toLowerCase(Locale.ROOT);
        int svc = indexOf(labels, "svc");
        if (catalog != null && svc >= 2 && fqdn.endsWith("svc." + clusterDomain)) {
            String namespace = labels[svc - 1];
            String service = labels[svc - 2];
            boolean namespaceKnown = false;
            for (CatalogEntry e : catalog.values()) {
                if (e instanceof CatalogEntry.Namespace ns && ns.name().equals(namespace)) namespaceKnown = true;
                if (e instanceof CatalogEntry.Service s && s.namespace().equals(namespace) && s.name().equals(service)) sources.add(ref(e));
            }
            if (placeholderAnswer) {
                return new MeshReason("placeholder", "no service " + service + " in any cluster, namespace " + namespace
                        + " is known: the placeholder " + placeholder + " (meshdns.dns.placeholder.ipv4)", sources);
            }
            if (response.getRcode() == Rcode.NXDOMAIN) {
                String why = svc > 2 ? "more than one label before the namespace (" + String.join(".", java.util.Arrays.copyOf(labels, svc - 1))
                        + "): a search-path expansion of another name, never the placeholder"
                        : !namespaceKnown ? "no namespace " + namespace + " in any cluster (so no placeholder either)"
                        : "no service " + service + " in namespace " + namespace + " (placeholder off)";
                return new MeshReason("no such name", why, sources);
            }
            if (!sources.isEmpty()) {
                String local = localCluster();
                List<String> clusters = sources.stream().map(m -> m.get("cluster")).distinct().toList();
                String where = clusters.contains(local) ? "the local cluster " + local : "cluster " + String.join(", ", clusters)
                        + " (not in the local cluster " + local + ": meshdns.dns.remote-service-policy)";
                return new MeshReason("cluster service", "service " + namespace + "/" + service + " in " + where
                        + (clusters.size() > 1 ? "; also in " + clusters : "") + healthNote(catalog, local, clusters), sources);
            }
        }
        if (placeholderAnswer) {
            return new MeshReason("placeholder", "under a ServiceEntry suffix (meshdns.dns.placeholder.service-entry-suffixes) with no ServiceEntry for it", sources);
        }
        if (fqdn.contains(".clusterset.")) {
            return new MeshReason("clusterset merge", "the service's addresses merged across the clusters exporting it", sources);
        }
        return new MeshReason(response.getRcode() == Rcode.NXDOMAIN ? "no such name" : "mesh name",
                response.getRcode() == Rcode.NXDOMAIN ? "no catalog entry answers it" : "compiled from the discovery catalog", sources);
    }

    /**
     * A host one or more ServiceEntries name: the one that answers by {@link HostPrecedence} (the first in that order
     * whose addresses are in the answer), and the others as losers, each named in {@code sources} with its role.
     */
    private static MeshReason serviceEntryHost(Catalog catalog, String fqdn, List<CatalogEntry.ServiceEntry> claims, List<String> records,
                                               List<Map<String, String>> sources) {
        java.util.Set<String> local = new java.util.HashSet<>();
        catalog.clusters().forEach(c -> {
            if (c.local()) local.add(c.name());
        });
        claims.sort(HostPrecedence.order(local::contains));
        String host = fqdn.endsWith(".") ? fqdn.substring(0, fqdn.length() - 1) : fqdn;
        CatalogEntry.ServiceEntry winner = claims.stream().filter(se -> answers(se, host, records)).findFirst().orElse(claims.get(0));
        for (CatalogEntry.ServiceEntry se : claims) {
            Map<String, String> m = ref(se);
            m.put("role", se == winner ? "answers" : "outranked");
            if (se.created() != null) m.put("created", se.created());
            sources.add(m);
        }
        boolean own = winner.addresses().isEmpty();
        String why = own ? "the ServiceEntry has no addresses: the VIP discovery allocated (" + winner.allocatedVips().values() + ")"
                : "the ServiceEntry's addresses " + winner.addresses();
        if (claims.size() > 1) {
            why += "; " + claims.size() + " ServiceEntries name this host and " + winner.ref() + " answers (" + HostPrecedence.RULE + ")";
        }
        return new MeshReason(own ? "ServiceEntry host, meshdns VIP" : "ServiceEntry host, its addresses", why, sources);
    }

    /** Whether one of the entry's addresses for {@code host} is in the answer's records (their text form). */
    private static boolean answers(CatalogEntry.ServiceEntry se, String host, List<String> records) {
        List<String> addresses = new ArrayList<>(se.addresses());
        se.allocatedVips().forEach((h, vips) -> {
            if (h.equalsIgnoreCase(host)) addresses.addAll(vips);
        });
        addresses.addAll(se.endpointAddresses());
        for (String a : addresses) {
            String ip = a.contains("/") ? a.substring(0, a.indexOf('/')) : a;
            if (records.stream().anyMatch(r -> r.endsWith("\t" + ip))) return true;
        }
        return false;
    }

    /**
     * Under {@code meshdns.dns.multicluster.unhealthy-clusters=drop}: which of the name's clusters were left out and why,
     * or that all were kept because none is healthy (fail-open). Empty when the policy is off or all are healthy.
     */
    private String healthNote(Catalog catalog, String local, List<String> clusters) {
        if (!naming.settings().dropUnhealthyClusters()) return "";
        Map<String, String> unhealthy = ClusterHealthPolicy.unhealthy(catalog.clusters(), local);
        List<String> theirs = clusters.stream().filter(unhealthy::containsKey).toList();
        if (theirs.isEmpty()) return "";
        java.util.Set<String> out = ClusterHealthPolicy.leftOut(unhealthy.keySet(), clusters);
        if (out.isEmpty()) {
            return "; every cluster that has it is unhealthy (" + String.join(", ", theirs) + "): all answered (fail-open)";
        }
        StringBuilder b = new StringBuilder("; left out (meshdns.dns.multicluster.unhealthy-clusters=drop): ");
        String sep = "";
        for (String c : out) {
            b.append(sep).append(c).append(" (").append(unhealthy.get(c)).append(')');
            sep = ", ";
        }
        return b.toString();
    }

    /**
     * How the addresses of a name that sits in several clusters or zones are ordered for this node
     * ({@code meshdns.dns.locality.*}); null when the name has one locality or the order is off.
     */
    private static String localityNote(Snapshot snapshot, io.meshdns.dns.kubernetes.MeshSettings.Locality locality, Name name, int type) {
        if ((type != Type.A && type != Type.AAAA) || !snapshot.mesh().localities().containsKey(name)) return null;
        var order = locality.order();
        if (order == io.meshdns.dns.kubernetes.MeshSettings.Locality.Order.NONE) return null;
        String cluster = "this node's cluster first, then the other clusters (meshdns.dns.locality.order="
                + order.name().toLowerCase(java.util.Locale.ROOT) + ")";
        if (order == io.meshdns.dns.kubernetes.MeshSettings.Locality.Order.CLUSTER) return cluster;
        String zone = locality.zone() != null ? locality.zone() : snapshot.mesh().learnedZone();
        if (zone == null) {
            return cluster + "; this node's zone is unknown (set meshdns.dns.locality.zone, or meshdns.dns.locality.node-name to learn it)";
        }
        return "zone " + zone + " (" + (locality.zone() != null ? "meshdns.dns.locality.zone" : "learned from the endpoints on this node")
                + ") first, then " + cluster;
    }

    private static int indexOf(String[] labels, String label) {
        for (int i = labels.length - 1; i >= 0; i--) if (labels[i].equals(label)) return i;
        return -1;
    }

    private static Map<String, String> ref(CatalogEntry e) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("cluster", e.ref().cluster());
        m.put("kind", e.ref().kind().name());
        m.put("namespace", e.ref().namespace());
        m.put("name", e.ref().name());
        return m;
    }

    /** The placeholder address this node answers with, as validated at start (MeshSettings); null when off. */
    private String placeholder() {
        var p = naming.settings().placeholder();
        return p.enabled() && p.ipv4() != null ? p.ipv4().getHostAddress() : null;
    }

    private String localCluster() {
        String local = naming.settings().localCluster();
        return local != null ? local : "(catalog's local cluster)";
    }
}
