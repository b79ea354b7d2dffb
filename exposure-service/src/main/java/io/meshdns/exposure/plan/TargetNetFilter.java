package io.meshdns.exposure.plan;

import io.meshdns.exposure.endpoint.Endpoint;
import java.util.ArrayList;
import java.util.List;
import org.xbill.DNS.Address;

/**
 * ExternalDNS's {@code --target-net-filter} / {@code --exclude-target-net}: a desired target is kept
 * when it is an address inside one of the included networks (any target when none is given) and
 * inside none of the excluded ones; a target that is not an address (a CNAME's name) is kept only
 * when no network is included, as in ExternalDNS. An endpoint left without targets is dropped.
 * Applied to desired endpoints only: records already in the zone are the plan's business.
 */
public record TargetNetFilter(List<Net> include, List<Net> exclude) {

    public static final TargetNetFilter ALL = new TargetNetFilter(List.of(), List.of());

    /** One network: address bytes (4 or 16) and prefix length. */
    public record Net(byte[] address, int prefix) {
        static Net parse(String key, String text) {
            String t = text.trim();
            int slash = t.indexOf('/');
            byte[] a = literal(slash < 0 ? t : t.substring(0, slash));
            if (a == null) throw new IllegalArgumentException(key + ": '" + t + "' is not a network (address/prefix)");
            int prefix;
            try {
                prefix = slash < 0 ? a.length * 8 : Integer.parseInt(t.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + ": '" + t + "' has no numeric prefix length");
            }
            if (prefix < 0 || prefix > a.length * 8) {
                throw new IllegalArgumentException(key + ": '" + t + "' prefix length outside 0.." + a.length * 8);
            }
            return new Net(a, prefix);
        }

        boolean contains(byte[] ip) {
            if (ip.length != address.length) return false;
            int full = prefix / 8;
            for (int i = 0; i < full; i++) if (ip[i] != address[i]) return false;
            int rest = prefix % 8;
            if (rest == 0) return true;
            int mask = (0xff << (8 - rest)) & 0xff;
            return (ip[full] & mask) == (address[full] & mask);
        }
    }

    public TargetNetFilter {
        include = List.copyOf(include);
        exclude = List.copyOf(exclude);
    }

    public static TargetNetFilter of(List<String> include, List<String> exclude) {
        var in = new ArrayList<Net>();
        for (String s : include) if (!s.isBlank()) in.add(Net.parse("meshdns.exposure.target-net-filter", s));
        var ex = new ArrayList<Net>();
        for (String s : exclude) if (!s.isBlank()) ex.add(Net.parse("meshdns.exposure.exclude-target-net", s));
        return new TargetNetFilter(in, ex);
    }

    public boolean isEmpty() {
        return include.isEmpty() && exclude.isEmpty();
    }

    public boolean matches(String target) {
        byte[] ip = literal(target);
        boolean included = include.isEmpty() || (ip != null && include.stream().anyMatch(n -> n.contains(ip)));
        boolean excluded = ip != null && exclude.stream().anyMatch(n -> n.contains(ip));
        return included && !excluded;
    }

    /** The endpoints with their targets filtered; one left without a target is dropped. */
    public List<Endpoint> apply(List<Endpoint> endpoints) {
        if (isEmpty()) return endpoints;
        var out = new ArrayList<Endpoint>(endpoints.size());
        for (Endpoint e : endpoints) {
            List<String> kept = e.targets().stream().filter(this::matches).toList();
            if (kept.size() == e.targets().size()) {
                out.add(e);
            } else if (!kept.isEmpty()) {
                out.add(e.withTargets(kept));
            }
        }
        return out;
    }

    /** Address bytes of an IPv4/IPv6 literal (never a name lookup), or null. */
    private static byte[] literal(String s) {
        byte[] a = Address.toByteArray(s, Address.IPv4);
        return a != null ? a : Address.toByteArray(s, Address.IPv6);
    }
}
