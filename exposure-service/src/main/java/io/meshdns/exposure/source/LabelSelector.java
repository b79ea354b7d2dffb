package io.meshdns.exposure.source;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The equality subset of Kubernetes' label selector syntax ({@code k=v}, {@code k==v}, {@code k!=v}, {@code k},
 * {@code !k}, comma = and), as ExternalDNS's --label-filter, --annotation-filter and --gateway-label-filter take it. An empty selector matches everything.
 */
public record LabelSelector(List<String[]> requirements) {

    /** Fails naming {@code key} on text it cannot read. */
    public static LabelSelector parse(String key, String text) {
        var out = new ArrayList<String[]>();
        for (String raw : text.split(",")) {
            String r = raw.trim();
            if (r.isEmpty()) continue;
            String[] req;
            if (r.contains("!=")) req = new String[] {"!=", r.substring(0, r.indexOf("!=")).trim(), r.substring(r.indexOf("!=") + 2).trim()};
            else if (r.contains("==")) req = new String[] {"=", r.substring(0, r.indexOf("==")).trim(), r.substring(r.indexOf("==") + 2).trim()};
            else if (r.contains("=")) req = new String[] {"=", r.substring(0, r.indexOf('=')).trim(), r.substring(r.indexOf('=') + 1).trim()};
            else if (r.startsWith("!")) req = new String[] {"!", r.substring(1).trim(), ""};
            else req = new String[] {"exists", r, ""};
            if (req[1].isEmpty() || !req[1].matches("[A-Za-z0-9./_-]+")) {
                throw new IllegalArgumentException(key + ": '" + text + "': not a label selector (k=v, k!=v, k, !k)");
            }
            out.add(req);
        }
        return new LabelSelector(List.copyOf(out));
    }

    public boolean matches(Map<String, String> labels) {
        Map<String, String> l = labels == null ? Map.of() : labels;
        for (String[] r : requirements) {
            boolean ok = switch (r[0]) {
                case "=" -> r[2].equals(l.get(r[1]));
                case "!=" -> !r[2].equals(l.get(r[1]));
                case "!" -> !l.containsKey(r[1]);
                default -> l.containsKey(r[1]);
            };
            if (!ok) return false;
        }
        return true;
    }
}
