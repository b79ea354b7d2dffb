package io.meshdns.exposure.endpoint;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One RRset we want to exist (desired) or that exists (current): the value that flows through
 * Source → Plan → Registry → Provider, like ExternalDNS's {@code endpoint.Endpoint}.
 *
 * <p>Names are stored lower-case without the trailing dot, so two endpoints compare equal when DNS
 * says they are the same name. Targets are a sorted set in a canonical text form per type:
 * A/AAAA the canonical address, CNAME/NS/PTR a lower-case host name without trailing dot, SRV
 * {@code "priority weight port target"}, MX {@code "preference host"}, TXT the raw text.
 *
 * @param ttl 0 means "not configured": the plan then never updates a record for its TTL alone
 *     (ExternalDNS semantics), the provider writes its default.
 */
public record Endpoint(String dnsName, String recordType, List<String> targets, long ttl,
                       Map<String, String> labels, String setIdentifier, Map<String, String> providerSpecific) {

    public static final String OWNER_LABEL = "owner";
    public static final String RESOURCE_LABEL = "resource";
    /** Set by the registry on a current endpoint that is one owner's share of a multi-owner RRset. */
    public static final String SHARED_LABEL = "meshdns/shared";

    /** Largest TTL RFC 2181 section 8 allows; larger values are refused instead of wrapping. */
    public static final long MAX_TTL = Integer.MAX_VALUE;

    public Endpoint(String dnsName, String recordType, List<String> targets, long ttl,
                    Map<String, String> labels, String setIdentifier) {
        this(dnsName, recordType, targets, ttl, labels, setIdentifier, Map.of());
    }

    public Endpoint {
        dnsName = normalizeName(dnsName);
        providerSpecific = Collections.unmodifiableMap(new TreeMap<>(providerSpecific == null ? Map.of() : providerSpecific));
        recordType = recordType.toUpperCase(Locale.ROOT);
        targets = normalizeTargets(recordType, targets);
        labels = Collections.unmodifiableMap(new TreeMap<>(labels == null ? Map.of() : labels));
        setIdentifier = setIdentifier == null ? "" : setIdentifier;
        if (ttl < 0 || ttl > MAX_TTL) {
            throw new IllegalArgumentException("TTL " + ttl + " of " + dnsName + " out of range 0.." + MAX_TTL);
        }
    }

    public static Endpoint of(String name, String type, long ttl, String... targets) {
        return new Endpoint(name, type, List.of(targets), ttl, Map.of(), "");
    }

    public Key key() {
        return new Key(dnsName, recordType, setIdentifier);
    }

    public String owner() {
        return labels.getOrDefault(OWNER_LABEL, "");
    }

    public String resource() {
        return labels.getOrDefault(RESOURCE_LABEL, "");
    }

    public boolean shared() {
        return "true".equals(labels.get(SHARED_LABEL));
    }

    public Endpoint withLabel(String key, String value) {
        var copy = new TreeMap<>(labels);
        copy.put(key, value);
        return new Endpoint(dnsName, recordType, targets, ttl, copy, setIdentifier, providerSpecific);
    }

    public Endpoint withLabels(Map<String, String> newLabels) {
        return new Endpoint(dnsName, recordType, targets, ttl, newLabels, setIdentifier, providerSpecific);
    }

    public Endpoint withTargets(Collection<String> newTargets) {
        return new Endpoint(dnsName, recordType, List.copyOf(newTargets), ttl, labels, setIdentifier, providerSpecific);
    }

    public Endpoint withTtl(long newTtl) {
        return new Endpoint(dnsName, recordType, targets, newTtl, labels, setIdentifier, providerSpecific);
    }

    public Endpoint withProviderSpecific(Map<String, String> properties) {
        return new Endpoint(dnsName, recordType, targets, ttl, labels, setIdentifier, properties);
    }

    /** The provider-specific properties among {@code names} (name → value, sorted). */
    public Map<String, String> providerSpecific(java.util.Set<String> names) {
        if (names.isEmpty() || providerSpecific.isEmpty()) return Map.of();
        var kept = new TreeMap<String, String>();
        providerSpecific.forEach((k, v) -> {
            if (names.contains(k)) kept.put(k, v);
        });
        return kept;
    }

    /** A provider-specific property (ExternalDNS's providerSpecific list, name → value). */
    public java.util.Optional<String> property(String name) {
        return java.util.Optional.ofNullable(providerSpecific.get(name));
    }

    @Override
    public String toString() {
        return dnsName + " " + (ttl == 0 ? "" : ttl + " ") + recordType + " " + targets
                + (setIdentifier.isEmpty() ? "" : " set=" + setIdentifier)
                + (labels.isEmpty() ? "" : " " + labels)
                + (providerSpecific.isEmpty() ? "" : " providerSpecific=" + providerSpecific);
    }

    /** The identity of an RRset in the plan: name, type and (for routing policies) set identifier. */
    public record Key(String dnsName, String recordType, String setIdentifier) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int c = dnsName.compareTo(o.dnsName);
            if (c == 0) c = recordType.compareTo(o.recordType);
            return c != 0 ? c : setIdentifier.compareTo(o.setIdentifier);
        }

        @Override
        public String toString() {
            return dnsName + "/" + recordType + (setIdentifier.isEmpty() ? "" : "/" + setIdentifier);
        }
    }

    public static String normalizeName(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        while (n.endsWith(".") && n.length() > 1) {
            n = n.substring(0, n.length() - 1);
        }
        return n;
    }

    static List<String> normalizeTargets(String type, Collection<String> raw) {
        var set = new TreeSet<String>();
        for (String t : raw == null ? List.<String>of() : raw) {
            set.add(normalizeTarget(type, t));
        }
        return List.copyOf(new ArrayList<>(set));
    }

    /** Canonical text for one target; throws IllegalArgumentException for a target the type cannot hold. */
    public static String normalizeTarget(String type, String target) {
        String t = target.trim();
        switch (type) {
            case "A", "AAAA" -> {
                if (!isIpLiteral(t) || (type.equals("A") != (t.indexOf(':') < 0))) {
                    throw new IllegalArgumentException("not an " + type + " address: " + target);
                }
                try {
                    InetAddress address = InetAddress.getByName(t);
                    // Java turns an IPv4-mapped IPv6 literal into an IPv4 address; an AAAA target keeps RFC 5952's mixed form.
                    if (type.equals("AAAA") && address instanceof java.net.Inet4Address) return "::ffff:" + address.getHostAddress();
                    return canonicalAddress(address);
                } catch (Exception e) {
                    throw new IllegalArgumentException("not an address: " + target, e);
                }
            }
            case "CNAME", "NS", "PTR" -> {
                return requireHostName(t, true);
            }
            case "SRV" -> {
                String[] p = t.split("\\s+");
                if (p.length != 4) {
                    throw new IllegalArgumentException("SRV target must be 'priority weight port host': " + target);
                }
                return u16(p[0]) + " " + u16(p[1]) + " " + u16(p[2]) + " " + requireHostName(p[3], true);
            }
            case "MX" -> {
                String[] p = t.split("\\s+");
                if (p.length != 2) {
                    throw new IllegalArgumentException("MX target must be 'preference host': " + target);
                }
                return u16(p[0]) + " " + requireHostName(p[1], true);
            }
            default -> {
                return target;
            }
        }
    }

    /** Dotted quad for IPv4, RFC 5952 text (lower-case, longest zero run as "::") for IPv6. */
    public static String canonicalAddress(InetAddress address) {
        String full = address.getHostAddress();
        if (!(address instanceof java.net.Inet6Address)) return full;
        int pct = full.indexOf('%');
        if (pct >= 0) full = full.substring(0, pct);
        String[] groups = full.split(":");
        int bestStart = -1, bestLen = 0;
        for (int i = 0; i < groups.length; ) {
            if (groups[i].equals("0")) {
                int j = i;
                while (j < groups.length && groups[j].equals("0")) j++;
                if (j - i > bestLen && j - i > 1) {
                    bestStart = i;
                    bestLen = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        if (bestStart < 0) return String.join(":", groups);
        String head = String.join(":", java.util.Arrays.copyOfRange(groups, 0, bestStart));
        String tail = String.join(":", java.util.Arrays.copyOfRange(groups, bestStart + bestLen, groups.length));
        return head + "::" + tail;
    }

    public static boolean isIpLiteral(String s) {
        if (s.isEmpty()) return false;
        if (s.indexOf(':') >= 0) {
            return s.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
        }
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) return false;
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    /**
     * A name to publish records at, from an annotation, a rule host or a DNSEndpoint: lower-case,
     * no trailing dot, labels of 1..63 octets; not the root, which is what "." or ".." trim to.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static String normalizeHostName(String name) {
        return requireHostName(name, false);
    }

    /**
     * A name a provider can write: labels of 1..63 octets, at most 253 in all (RFC 1035 2.3.4). The
     * root only where {@code rootAllowed}: as a target (SRV and MX "none", RFC 2782 and RFC 7505; a
     * zone may hold a CNAME to it), never as a name to publish at.
     */
    private static String requireHostName(String s, boolean rootAllowed) {
        String n = normalizeName(s);
        if (rootAllowed && n.equals(".")) return n;
        if (n.isEmpty() || n.length() > 253 || !n.matches("[a-z0-9_*.-]+")) {
            throw new IllegalArgumentException("not a host name: " + s);
        }
        for (String label : n.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63) {
                throw new IllegalArgumentException("not a host name (a label is empty or longer than 63): " + s);
            }
        }
        return n;
    }

    private static int u16(String s) {
        int v;
        try {
            v = Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a number: " + s);
        }
        if (v < 0 || v > 65535) throw new IllegalArgumentException("out of range 0..65535: " + s);
        return v;
    }
}
