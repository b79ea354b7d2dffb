package io.meshdns.dns.ratelimit;

import io.meshdns.dns.base.Cidr;

/** {@link RrlConfig} checked: a value of 0 or below where a rate is meant stops the start, naming the key. */
public record RrlSettings(boolean enabled, int responsesPerSecond, int slip, int ipv4PrefixLength, int ipv6PrefixLength,
                          int shedQueriesPerSecond, int tableSize, java.util.List<Cidr> exempt) {
    public RrlSettings(boolean enabled, int responsesPerSecond, int slip, int ipv4PrefixLength, int ipv6PrefixLength,
                       int shedQueriesPerSecond, int tableSize) {
        this(enabled, responsesPerSecond, slip, ipv4PrefixLength, ipv6PrefixLength, shedQueriesPerSecond, tableSize, java.util.List.of());
    }

    public RrlSettings {
        exempt = java.util.List.copyOf(exempt);
        require(responsesPerSecond >= 1, "meshdns.dns.rrl.responses-per-second", "must be at least 1, got " + responsesPerSecond);
        require(slip >= 0 && slip <= 10, "meshdns.dns.rrl.slip", "must be 0 (drop all) to 10, got " + slip);
        require(ipv4PrefixLength >= 8 && ipv4PrefixLength <= 32, "meshdns.dns.rrl.ipv4-prefix-length", "must be 8-32, got " + ipv4PrefixLength);
        require(ipv6PrefixLength >= 16 && ipv6PrefixLength <= 128, "meshdns.dns.rrl.ipv6-prefix-length", "must be 16-128, got " + ipv6PrefixLength);
        require(shedQueriesPerSecond >= 0, "meshdns.dns.rrl.shed-queries-per-second", "must be 0 (off) or more, got " + shedQueriesPerSecond);
        require(tableSize >= 16 && tableSize <= (1 << 24), "meshdns.dns.rrl.table-size", "must be 16 to 16777216, got " + tableSize);
    }

    public static RrlSettings from(RrlConfig c) {
        java.util.List<Cidr> exempt = new java.util.ArrayList<>();
        for (String text : c.exemptClients()) {
            if (text.isBlank()) continue;
            try {
                exempt.add(Cidr.parse(text.trim()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("meshdns.dns.rrl.exempt-clients: '" + text.trim() + "' is not a CIDR");
            }
        }
        return new RrlSettings(c.enabled(), c.responsesPerSecond(), c.slip(), c.ipv4PrefixLength(), c.ipv6PrefixLength(),
                c.shedQueriesPerSecond(), c.tableSize(), exempt);
    }

    private static void require(boolean ok, String key, String why) {
        if (!ok) throw new IllegalArgumentException(key + ": " + why);
    }
}
