package io.meshdns.model.operator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Which {@code Host} headers an HTTP port answers: the defence against DNS rebinding, where a page on an
 * attacker's name, re-pointed at 127.0.0.1 or a pod address, would read a status page, explain or metrics
 * with the browser as the go-between. A rebinding needs a name the attacker controls, so the port answers:
 * <ul>
 * <li>an IP literal (a browser that navigated to an address is same-origin with nothing else; kubelet probes,
 *     Prometheus and the dns-service nodes' ClusterIP URL all send one);</li>
 * <li>{@code localhost} and this machine's own host name (the pod name);</li>
 * <li>cluster-internal Service names, ending in {@code .svc} or {@code .svc.cluster.local};</li>
 * <li>every entry of {@code meshdns.http.allowed-hosts}: a name, or {@code .suffix} for a name and everything
 *     below it (a LoadBalancer's DNS name, another cluster domain), or {@code *} for any (not advised).</li>
 * </ul>
 * A request without a {@code Host} header (HTTP/1.0 tools) is answered: no browser sends one. A request over TLS is
 * answered whatever its {@code Host}: a rebound name fails the browser's certificate check before any request is
 * sent, and TLS clients name the certificate's host (a node sends discovery's server name), not an address.
 */
public final class HostAllowlist {
    public static final String KEY = "meshdns.http.allowed-hosts";
    /** Before every other route, so that no handler runs for a refused name. */
    public static final int ROUTE_ORDER = Integer.MIN_VALUE + 1;
    private static final List<String> DEFAULT_SUFFIXES = List.of(".svc", ".svc.cluster.local");

    private final Set<String> names;
    private final List<String> suffixes;
    private final boolean any;

    private HostAllowlist(Set<String> names, List<String> suffixes, boolean any) {
        this.names = names;
        this.suffixes = suffixes;
        this.any = any;
    }

    /**
     * @param configured the entries of {@link #KEY} (empty when unset)
     * @param ownNames   this machine's names, beside {@code localhost}
     */
    public static HostAllowlist of(List<String> configured, List<String> ownNames) {
        Set<String> names = new LinkedHashSet<>();
        List<String> suffixes = new ArrayList<>(DEFAULT_SUFFIXES);
        boolean any = false;
        names.add("localhost");
        for (String n : ownNames) {
            if (n != null && !n.isBlank()) {
                names.add(normalise(n));
            }
        }
        for (String raw : configured) {
            String entry = raw.strip();
            if (entry.isEmpty()) {
                continue;
            }
            if (entry.equals("*")) {
                any = true;
            } else if (entry.startsWith(".")) {
                if (entry.length() < 2 || !isHostName(entry.substring(1))) {
                    throw new IllegalArgumentException(KEY + ": '" + entry + "' is not a host name suffix (.example.com)");
                }
                suffixes.add(normalise(entry));
            } else {
                if (!isHostName(entry)) {
                    throw new IllegalArgumentException(KEY + ": '" + entry + "' is not a host name");
                }
                names.add(normalise(entry));
            }
        }
        return new HostAllowlist(Set.copyOf(names), List.copyOf(suffixes), any);
    }

    /** From the configuration ({@code valuesOf} reads a list key) and the machine's own host name. */
    public static HostAllowlist fromConfig(Function<String, Optional<List<String>>> valuesOf) {
        return of(valuesOf.apply(KEY).orElse(List.of()), ownHostNames());
    }

    /** Whether a request with this {@code Host} header (port included or not) is answered. */
    public boolean allows(String hostHeader) {
        if (hostHeader == null || any) {
            return true;
        }
        String host = stripPort(hostHeader.strip());
        if (host.isEmpty()) {
            return false;
        }
        if (host.startsWith("[")) {
            return host.endsWith("]") && host.indexOf(':') > 0; // an IPv6 literal
        }
        if (isIpv4Literal(host)) {
            return true;
        }
        String name = normalise(host);
        if (names.contains(name)) {
            return true;
        }
        for (String suffix : suffixes) {
            if (name.endsWith(suffix) && name.length() > suffix.length()) {
                return true;
            }
        }
        return false;
    }

    /** The answer's body for a refused name: what to change. */
    public String refusal() {
        return "host not allowed: add it to " + KEY + "\n";
    }

    private static String stripPort(String host) {
        if (host.startsWith("[")) {
            int close = host.indexOf(']');
            return close < 0 ? host : host.substring(0, close + 1);
        }
        int colon = host.lastIndexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }

    private static String normalise(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }

    private static boolean isIpv4Literal(String s) {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    private static boolean isHostName(String s) {
        return s.length() <= 253 && s.matches("(?i)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*\\.?");
    }

    /**
     * The pod's own names, read without a DNS lookup (a node-local dns-service may be the resolver the lookup
     * would ask): the kernel's host name and {@code HOSTNAME}.
     */
    static List<String> ownHostNames() {
        List<String> names = new ArrayList<>();
        try {
            names.add(Files.readString(Path.of("/proc/sys/kernel/hostname")).strip());
        } catch (Exception e) {
            // not Linux, or no /proc: HOSTNAME below
        }
        String env = System.getenv("HOSTNAME");
        if (env != null) {
            names.add(env.strip());
        }
        names.removeIf(n -> !isHostName(n));
        return names;
    }
}
