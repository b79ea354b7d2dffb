package io.meshdns.dns.testing;

/** Zone texts used by the forwarding tests; generated so each test can vary the content. */
public final class TestZones {
    private TestZones() {
    }

    /**
     * {@code zone} with SOA TTL 300 and MINIMUM 60 (so the RFC 2308 negative TTL is 60),
     * {@code www} A {@code wwwAddress} (TTL 300), {@code short} A with TTL 5, and {@code big}: a TXT
     * RRset of about 4 KB that does not fit the 1232-byte EDNS payload, so UDP answers are truncated;
     * and {@code *.wild} A 192.0.2.7, so each test can ask names of its own.
     */
    public static String example(String zone, String wwwAddress) {
        StringBuilder z = new StringBuilder();
        z.append("$ORIGIN ").append(zone).append(".\n")
                .append("$TTL 300\n")
                .append("@ IN SOA ns1 hostmaster 1 3600 600 86400 60\n")
                .append("@ IN NS ns1\n")
                .append("ns1 IN A 127.0.0.1\n")
                .append("www IN A ").append(wwwAddress).append("\n")
                .append("short 5 IN A 192.0.2.5\n")
                .append("alias IN CNAME www\n")
                .append("*.wild IN A 192.0.2.7\n");
        for (int i = 0; i < 20; i++) {
            z.append("big IN TXT \"").append(String.format("%02d", i)).append("x".repeat(198)).append("\"\n");
        }
        return z.toString();
    }
}
