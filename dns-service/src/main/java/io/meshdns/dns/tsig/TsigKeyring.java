package io.meshdns.dns.tsig;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.model.TsigAlgorithms;
import org.xbill.DNS.Name;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TextParseException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The TSIG keys dns-service accepts (RFC 8945), parsed from {@code name:algorithm:base64-secret} entries, with the
 * clock every signature is checked and made against (a fixed one in tests and the fuzz targets, so a signed input
 * stays valid) and whether MACs truncated to a length RFC 8945 section 5.2.2.1 permits are accepted. Immutable;
 * a bad entry fails at start naming the configuration key and the entry.
 */
public final class TsigKeyring {
    /** The shared table (record-model), as dnsjava names. */
    private static final Map<String, Name> ALGORITHMS = algorithms();

    private final Map<Name, Entry> keys;
    private final Clock clock;
    private final boolean allowTruncatedMac;

    /** A key, its algorithm, and the full length of the algorithm's MAC, which the truncation rules are measured against. */
    public record Entry(TSIG key, Name algorithm, int macLength) {
    }

    private TsigKeyring(Map<Name, Entry> keys, Clock clock, boolean allowTruncatedMac) {
        this.keys = Map.copyOf(keys);
        this.clock = clock;
        this.allowTruncatedMac = allowTruncatedMac;
    }

    /** {@code entries} read from the configuration key {@code configKey} (named in every error). */
    public static TsigKeyring parse(String configKey, List<String> entries, Clock clock, boolean allowTruncatedMac) {
        Map<Name, Entry> keys = new HashMap<>();
        for (String raw : entries) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            String[] parts = entry.split(":", 3);
            String label = parts[0].isBlank() ? "(unnamed)" : parts[0];
            if (parts.length != 3 || parts[0].isBlank()) {
                throw bad(configKey, "entry for key '" + label + "' is not name:algorithm:base64-secret");
            }
            Name name;
            try {
                name = Name.fromString(parts[0].trim(), Name.root);
            } catch (TextParseException e) {
                throw bad(configKey, "key name '" + label + "' is not a domain name");
            }
            Name algorithm = ALGORITHMS.get(parts[1].trim().toLowerCase(Locale.ROOT));
            if (algorithm == null) {
                throw bad(configKey, "key '" + label + "': unknown algorithm '" + parts[1] + "' (one of " + ALGORITHMS.keySet() + ")");
            }
            byte[] secret;
            try {
                secret = Base64.getDecoder().decode(parts[2].trim());
            } catch (IllegalArgumentException e) {
                throw bad(configKey, "key '" + label + "': the secret is not base64");
            }
            if (secret.length == 0) {
                throw bad(configKey, "key '" + label + "': the secret is empty");
            }
            String jca = TSIG.nameToAlgorithm(algorithm);
            TSIG key = new TSIG(algorithm, name, new SecretKeySpec(secret, jca), clock);
            if (keys.put(name, new Entry(key, algorithm, macLength(jca))) != null) {
                throw bad(configKey, "key '" + label + "' is defined twice");
            }
        }
        return new TsigKeyring(keys, clock, allowTruncatedMac);
    }

    private static int macLength(String jca) {
        try {
            return Mac.getInstance(jca).getMacLength();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no " + jca, e);
        }
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

    private static InvalidConfigException bad(String configKey, String problem) {
        return new InvalidConfigException(configKey, problem);
    }

    /** The key named {@code name}; null when unknown. */
    public TSIG get(Name name) {
        Entry e = keys.get(name);
        return e == null ? null : e.key();
    }

    /** The key named {@code name} with its MAC length; null when unknown. */
    public Entry entry(Name name) {
        return keys.get(name);
    }

    public Clock clock() {
        return clock;
    }

    /** False: a MAC shorter than its algorithm's full output is refused with BADTRUNC (RFC 8945 section 5.2.4). */
    public boolean allowTruncatedMac() {
        return allowTruncatedMac;
    }

    public boolean isEmpty() {
        return keys.isEmpty();
    }

    public int size() {
        return keys.size();
    }
}
