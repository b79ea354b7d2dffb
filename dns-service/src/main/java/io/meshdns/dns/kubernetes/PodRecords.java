package io.meshdns.dns.kubernetes;

import io.meshdns.dns.base.Names;

import io.meshdns.model.CatalogEntry;
import org.xbill.DNS.Name;

import java.net.InetAddress;

/** {@code a-b-c-d.<ns>.pod.<zone>} for one local pod in {@code verified} mode (Kubernetes DNS spec 2.5). Pure. */
final class PodRecords {
    private PodRecords() {
    }

    static void build(CompileInputs in, CatalogEntry.Pod p, Contribution out) {
        if (!in.isLocal(p.cluster()) || in.settings.pods() != MeshSettings.PodRecords.VERIFIED) return;
        for (String text : p.ips()) {
            InetAddress ip = Names.ip(text);
            if (ip == null) continue;
            Name owner = Names.under(Names.dashed(ip) + "." + p.namespace() + ".pod", in.zone);
            if (owner != null) out.add(in.zone, MeshZoneCompiler.address(owner, in.ttl, ip));
        }
    }
}
