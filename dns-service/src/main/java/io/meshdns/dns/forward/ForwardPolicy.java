package io.meshdns.dns.forward;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntUnaryOperator;
import java.util.function.Predicate;

/**
 * The order in which upstreams are tried, as CoreDNS's forward plugin: {@code random} shuffles,
 * {@code round-robin} rotates the start on every query, {@code sequential} always starts at the first.
 * Healthy upstreams come in that order; if none is healthy, one random upstream is tried anyway
 * (CoreDNS: "if all upstreams are down, pick a random one"). Pure.
 */
public enum ForwardPolicy {
    SEQUENTIAL, RANDOM, ROUND_ROBIN;

    public static ForwardPolicy parse(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "sequential" -> SEQUENTIAL;
            case "random" -> RANDOM;
            case "round-robin", "round_robin" -> ROUND_ROBIN;
            default -> throw new IllegalArgumentException("meshdns.dns.forward.policy: '" + value
                    + "' is not one of sequential, random, round-robin");
        };
    }

    /**
     * @param all      the candidate upstreams (already without looping ones)
     * @param tick     a counter advanced once per query (used by round-robin)
     * @param random   bound -> random int in [0, bound)
     * @param healthy  whether an upstream is currently up
     */
    public <T> List<T> order(List<T> all, long tick, IntUnaryOperator random, Predicate<T> healthy) {
        int n = all.size();
        List<T> ordered = new ArrayList<>(n);
        if (n == 0) {
            return ordered;
        }
        switch (this) {
            case SEQUENTIAL -> ordered.addAll(all);
            case ROUND_ROBIN -> {
                int start = (int) Math.floorMod(tick, (long) n);
                for (int i = 0; i < n; i++) {
                    ordered.add(all.get((start + i) % n));
                }
            }
            case RANDOM -> {
                ordered.addAll(all);
                for (int i = n - 1; i > 0; i--) { // Fisher-Yates
                    int j = random.applyAsInt(i + 1);
                    T t = ordered.get(i);
                    ordered.set(i, ordered.get(j));
                    ordered.set(j, t);
                }
            }
        }
        ordered.removeIf(healthy.negate());
        if (ordered.isEmpty()) {
            ordered.add(all.get(random.applyAsInt(n)));
        }
        return ordered;
    }
}
