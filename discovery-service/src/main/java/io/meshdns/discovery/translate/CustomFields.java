package io.meshdns.discovery.translate;

/**
 * Fields of a custom resource, which discovery reads as generic maps (no typed model): what the API server stored,
 * whatever the CRD's schema says, so a number may come as a string.
 */
public final class CustomFields {
    private CustomFields() {
    }

    /** A port number (1 to 65535) from a number or a numeric string; null otherwise. */
    public static Integer port(Object o) {
        long n;
        if (o instanceof Number num) {
            n = num.longValue();
        } else if (o instanceof String s) {
            try {
                n = Long.parseLong(s);
            } catch (NumberFormatException e) {
                return null;
            }
        } else {
            return null;
        }
        return n >= 1 && n <= 65535 ? (int) n : null;
    }
}
