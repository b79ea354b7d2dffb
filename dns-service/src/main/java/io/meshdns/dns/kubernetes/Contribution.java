package io.meshdns.dns.kubernetes;

import io.meshdns.dns.kubernetes.Contributions.Emitted;
import io.meshdns.dns.snapshot.MeshIndex.AddressLocality;
import io.meshdns.dns.snapshot.MeshIndex.ExportScope;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.PTRRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.ReverseMap;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one contributor (one service name, one pod, one ServiceEntry host) produces: its records by zone,
 * and what it adds to the answer-time index (names to spread, wildcard hosts outside our zones, export scopes).
 * A record builder fills one and returns; the compiler files it. Nothing else is passed between them.
 */
final class Contribution {
    final List<Emitted> records = new ArrayList<>();
    final List<Name> spread = new ArrayList<>();
    /** A/AAAA of wildcard ServiceEntry hosts outside our zones (owned by the wildcard name). */
    final List<Record> wildcards = new ArrayList<>();
    /** Export scopes of exact names (Service: whole subtree; ServiceEntry host: that name). */
    final Map<Name, ExportScope> scopes = new LinkedHashMap<>();
    /** Export scopes of wildcard hosts, by parent. */
    final Map<Name, ExportScope> wildcardScopes = new LinkedHashMap<>();
    /** Names whose addresses sit in more than one locality → each address's locality (answer-time order). */
    final Map<Name, Map<InetAddress, AddressLocality>> localities = new LinkedHashMap<>();
    /** The zone of an endpoint of this contributor on this node ({@code meshdns.dns.locality.node-name}), if any. */
    String nodeZone;
    /** The {@code <svc>.<ns>.svc.<zone>} a Service holds (null for other contributors, or a group without a Service). */
    Name serviceName;
    /** The placeholder Service's addresses, set only by that Service's name (empty: the fixed address applies). */
    List<InetAddress> placeholderAddresses;
    private final List<String> warnings;

    Contribution(List<String> warnings) {
        this.warnings = warnings;
    }

    /** {@code zoneKey}: a zone origin, or null for the non-authoritative overlay. */
    void add(Name zoneKey, Record r) {
        records.add(new Emitted(zoneKey, r));
    }

    void ptr(InetAddress ip, Name target, long ttl) {
        records.add(new Emitted(null, new PTRRecord(ReverseMap.fromAddress(ip), DClass.IN, ttl, target)));
    }

    /** Files the localities of {@code owner}'s addresses, when they differ (one locality needs no order). */
    void localities(Name owner, Map<InetAddress, AddressLocality> byAddress) {
        if (byAddress.size() > 1 && new java.util.HashSet<>(byAddress.values()).size() > 1) localities.put(owner, Map.copyOf(byAddress));
    }

    void warn(String warning) {
        warnings.add(warning);
    }

    boolean isEmpty() {
        return records.isEmpty() && spread.isEmpty() && wildcards.isEmpty() && scopes.isEmpty() && wildcardScopes.isEmpty()
                && serviceName == null && localities.isEmpty() && nodeZone == null;
    }
}
