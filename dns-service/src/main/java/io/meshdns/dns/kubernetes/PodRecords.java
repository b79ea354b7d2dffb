package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;

import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import org.xbill.DNS.Name;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * {@code a-b-c-d.<ns>.pod.<zone>} for one local pod in {@code verified} mode (Kubernetes DNS spec 2.5); and, in
 * every mode, the local pods' IPs as client addresses (a client's namespace for autopath and exportTo). Pure.
 */
final class PodRecords implements KindRecords<ObjectRef> {
    @Override
    public Set<Kind> kinds() {
        return Set.of(Kind.POD);
    }

    @Override
    public Collection<ObjectRef> contributors(CatalogEntry entry) {
        return List.of(entry.ref());
    }

    @Override
    public String id(ObjectRef pod) {
        return "pod " + pod;
    }

    @Override
    public List<IndexCounts.Fact> indexFacts(CatalogEntry entry, CompileInputs in) {
        if (!(entry instanceof CatalogEntry.Pod p) || !in.isLocal(p.cluster())) return List.of();
        List<IndexCounts.Fact> facts = new ArrayList<>();
        for (String text : p.ips()) {
            InetAddress ip = Names.ip(text);
            if (ip != null) facts.add(new IndexCounts.ClientAddress(ip, p.ref(), p.namespace()));
        }
        return facts;
    }

    @Override
    public void build(ObjectRef pod, List<CatalogEntry> entries, CompileInputs in, Predicate<Name> serviceNames, Contribution out) {
        for (CatalogEntry e : entries) {
            if (e instanceof CatalogEntry.Pod p) build(in, p, out);
        }
    }

    private static void build(CompileInputs in, CatalogEntry.Pod p, Contribution out) {
        if (!in.isLocal(p.cluster()) || in.settings.pods() != MeshSettings.PodRecords.VERIFIED) return;
        for (String text : p.ips()) {
            InetAddress ip = Names.ip(text);
            if (ip == null) continue;
            Name owner = Names.under(Names.dashed(ip) + "." + p.namespace() + ".pod", in.zone);
            if (owner != null) out.add(in.zone, MeshZoneCompiler.address(owner, in.ttl, ip));
        }
    }
}
