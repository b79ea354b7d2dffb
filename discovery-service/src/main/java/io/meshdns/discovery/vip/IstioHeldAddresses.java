package io.meshdns.discovery.vip;

import io.meshdns.discovery.translate.IpLiterals;
import io.meshdns.model.ObjectRef;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The addresses Istio holds ({@code status.addresses} of every ServiceEntry), counted per entry so that one entry
 * letting an address go keeps it held while another still has it: our own allocations never take one. Not
 * thread-safe: {@link VipAllocations} guards it.
 */
final class IstioHeldAddresses {
    private final Map<ObjectRef, Set<InetAddress>> byEntry = new HashMap<>();
    private final Map<InetAddress, Integer> entriesHolding = new HashMap<>();

    /** Records what {@code entry}'s status says Istio holds (empty: nothing any more). */
    void hold(ObjectRef entry, Map<String, List<String>> status) {
        Set<InetAddress> now = new HashSet<>();
        status.values().forEach(ips -> ips.forEach(ip -> {
            InetAddress a = literal(ip);
            if (a != null) now.add(a);
        }));
        Set<InetAddress> before = now.isEmpty() ? byEntry.remove(entry) : byEntry.put(entry, now);
        if (before != null) for (InetAddress a : before) entriesHolding.computeIfPresent(a, (k, n) -> n <= 1 ? null : n - 1);
        for (InetAddress a : now) entriesHolding.merge(a, 1, Integer::sum);
    }

    /** Whether Istio holds {@code ip} for some ServiceEntry. */
    boolean holds(String ip) {
        InetAddress a = literal(ip);
        return a != null && entriesHolding.containsKey(a);
    }

    Set<InetAddress> all() {
        return Set.copyOf(entriesHolding.keySet());
    }

    /** An IP literal as an address (no name lookup: the translator admitted only literals); null otherwise. */
    private static InetAddress literal(String ip) {
        if (ip == null || !IpLiterals.isIp(ip)) return null;
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
