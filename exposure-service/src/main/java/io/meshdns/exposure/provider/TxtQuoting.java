package io.meshdns.exposure.provider;

/**
 * TXT text as backends that store zone-file syntax want it: one quoted string with {@code "} and
 * {@code \} escaped. ExternalDNS writes its ownership records this way to the webhook, PowerDNS
 * and CoreDNS; the provider seam itself carries plain text.
 */
public final class TxtQuoting {

    private TxtQuoting() {
    }

    public static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** The plain text of a quoted value (possibly several quoted strings, joined); unquoted values are returned as they are. */
    public static String unquote(String value) {
        String v = value.trim();
        if (v.length() < 2 || !v.startsWith("\"") || !v.endsWith("\"")) return value;
        var sb = new StringBuilder();
        boolean in = false;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '"') {
                in = !in;
            } else if (c == '\\' && in && i + 1 < v.length()) {
                sb.append(v.charAt(++i));
            } else if (in) {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** Whether the plain text is an ExternalDNS ownership record (these are written quoted, as ExternalDNS does). */
    public static boolean isOwnershipText(String text) {
        return text.startsWith("heritage=");
    }
}
