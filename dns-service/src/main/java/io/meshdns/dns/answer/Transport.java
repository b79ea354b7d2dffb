package io.meshdns.dns.answer;

/** How a query arrived. Decides truncation (UDP only) and whether zone transfers are possible (TCP). */
public enum Transport {
    UDP("udp"),
    TCP("tcp");

    private final String label;

    Transport(String label) {
        this.label = label;
    }

    /** Lowercase, as CoreDNS's {@code proto} metric label and query log show it. */
    public String label() {
        return label;
    }
}
