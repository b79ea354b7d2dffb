package io.meshdns.exposure.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One ownership TXT string, wire-compatible with ExternalDNS's TXT registry:
 * <pre>heritage=external-dns,external-dns/owner=&lt;id&gt;,external-dns/resource=&lt;kind&gt;/&lt;ns&gt;/&lt;name&gt;</pre>
 * meshdns adds one label for multi-owner RRsets, listing the targets this owner contributes
 * (canonical target text, separated by ';'):
 * <pre>heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/nsm-system/registry,external-dns/targets=192.0.2.1;192.0.2.2</pre>
 * A claim without targets is ExternalDNS's exclusive claim on the whole RRset.
 *
 * @param targets empty = exclusive claim (ExternalDNS format); present = this owner's share.
 */
public record OwnershipClaim(String owner, String resource, Optional<List<String>> targets,
                             TreeMap<String, String> otherLabels) {

    static final String HERITAGE = "heritage=external-dns";
    static final String PREFIX = "external-dns/";

    public boolean shared() {
        return targets.isPresent();
    }

    /** The TXT text (without the zone-file quotes, before any encryption), labels sorted as ExternalDNS sorts them. */
    public String serialize() {
        var labels = new TreeMap<>(otherLabels);
        labels.put("owner", owner);
        if (!resource.isEmpty()) labels.put("resource", resource);
        targets.ifPresent(t -> labels.put("targets", String.join(";", t)));
        labels.remove(ClaimCodec.NONCE_LABEL); // how an encrypted claim was sealed, never part of its text
        var sb = new StringBuilder(HERITAGE);
        labels.forEach((k, v) -> sb.append(',').append(PREFIX).append(k).append('=').append(v));
        return sb.toString();
    }

    /** Parses a TXT text; empty when it is not an ExternalDNS-style ownership record. */
    public static Optional<OwnershipClaim> parse(String text) {
        String t = text.trim();
        if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
            t = t.substring(1, t.length() - 1);
        }
        String[] tokens = t.split(",");
        if (tokens.length == 0 || !tokens[0].equals(HERITAGE)) {
            return Optional.empty();
        }
        var labels = new TreeMap<String, String>();
        for (int i = 1; i < tokens.length; i++) {
            int eq = tokens[i].indexOf('=');
            if (eq <= 0) return Optional.empty();
            // Trimmed like the whole text: a label written last loses its trailing spaces to that trim on the next
            // read, so spaces kept here would make a claim that never reads back equal (OwnershipTxtFuzz).
            String key = tokens[i].substring(0, eq).trim();
            if (key.startsWith(PREFIX)) key = key.substring(PREFIX.length());
            labels.put(key, tokens[i].substring(eq + 1).trim());
        }
        String owner = labels.remove("owner");
        if (owner == null) owner = "";
        String resource = labels.remove("resource");
        String rawTargets = labels.remove("targets");
        Optional<List<String>> targets = Optional.empty();
        if (rawTargets != null) {
            var set = new TreeSet<String>();
            for (String s : rawTargets.split(";")) {
                // Trimmed first, then tested: a target of control characters only (trim() takes every char up to
                // U+0020; isBlank() only whitespace) would be kept as "" and lost on the next read (OwnershipTxtFuzz).
                String target = s.trim();
                if (!target.isEmpty()) set.add(target);
            }
            targets = Optional.of(List.copyOf(new ArrayList<>(set)));
        }
        return Optional.of(new OwnershipClaim(owner, resource == null ? "" : resource, targets, labels));
    }
}
