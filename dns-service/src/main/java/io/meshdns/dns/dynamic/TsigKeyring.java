package io.meshdns.dns.dynamic;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.model.TsigAlgorithms;
import org.xbill.DNS.Name;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TextParseException;

import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The TSIG keys dns-service accepts (RFC 8945), parsed from {@code meshdns.dns.tsig-keys} entries
 * {@code name:algorithm:base64-secret}. Pure; a bad entry fails at start naming the key and the entry.
 */
public final class TsigKeyring {
    /** The shared table (record-model), as dnsjava names. */
    private static final Map<String, Name> ALGORITHMS = algorithms();

    private final Map<Name, TSIG> keys;

    private TsigKeyring(Map<Name, TSIG> keys) {
        this.keys = Map.copyOf(keys);
    }

    public static TsigKeyring parse(List<String> entries) {
        Map<Name, TSIG> keys = new HashMap<>();
        for (String raw : entries) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            String[] parts = entry.split(":", 3);
            String label = parts[0].isBlank() ? "(unnamed)" : parts[0];
            if (parts.length != 3 || parts[0].isBlank()) {
                throw bad("entry for key '" + label + "' is not name:algorithm:base64-secret");
            }
            Name name;
            try {
                name = Name.fromString(parts[0].trim(), Name.root);
            } catch (TextParseException e) {
                throw bad("key name '" + label + "' is not a domain name");
            }
            Name algorithm = ALGORITHMS.get(parts[1].trim().toLowerCase(Locale.ROOT));
            if (algorithm == null) {
                throw bad("key '" + label + "': unknown algorithm '" + parts[1] + "' (one of " + ALGORITHMS.keySet() + ")");
            }
            byte[] secret;
            try {
                secret = Base64.getDecoder().decode(parts[2].trim());
            } catch (IllegalArgumentException e) {
                throw bad("key '" + label + "': the secret is not base64");
            }
            if (secret.length == 0) {
                throw bad("key '" + label + "': the secret is empty");
            }
            if (keys.put(name, new TSIG(algorithm, name, secret)) != null) {
                throw bad("key '" + label + "' is defined twice");
            }
        }
        return new TsigKeyring(keys);
    }

    private static Map<String, Name> algorithms() {
        Map<String, Name> m = new HashMap<>();
        TsigAlgorithms.DOMAIN_NAMES.forEach((config, domain) -> {
            try {
                m.put(config, Name.fromString(domain));
            } catch (TextParseException e) {
                throw new IllegalStateException(domain, e);
            }
        });
        return Map.copyOf(m);
    }

    private static InvalidConfigException bad(String problem) {
        return new InvalidConfigException(DynamicConfig.TSIG_KEYS, problem);
    }

    /** The key named {@code name}; null when unknown. */
    public TSIG get(Name name) {
        return keys.get(name);
    }

    public boolean isEmpty() {
        return keys.isEmpty();
    }

    public int size() {
        return keys.size();
    }
}
