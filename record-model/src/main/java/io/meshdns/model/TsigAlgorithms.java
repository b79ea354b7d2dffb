package io.meshdns.model;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The TSIG algorithms meshdns accepts, by the name a configuration uses ({@code hmac-sha256}), with
 * the algorithm's domain name on the wire (RFC 8945 section 6, RFC 4635). One table for dns-service
 * (the keys it accepts) and exposure-service (the key it signs with). Plain strings, so this module
 * needs no DNS library; each service turns the domain name into its own type.
 */
public final class TsigAlgorithms {

    /** Configuration name → algorithm domain name (absolute). */
    public static final Map<String, String> DOMAIN_NAMES = Map.copyOf(new TreeMap<>(Map.of(
            "hmac-md5", "hmac-md5.sig-alg.reg.int.",
            "hmac-sha1", "hmac-sha1.",
            "hmac-sha224", "hmac-sha224.",
            "hmac-sha256", "hmac-sha256.",
            "hmac-sha384", "hmac-sha384.",
            "hmac-sha512", "hmac-sha512.")));

    private TsigAlgorithms() {
    }

    /** The domain name of exactly this configuration name (case-insensitive). */
    public static Optional<String> domainName(String configName) {
        return Optional.ofNullable(DOMAIN_NAMES.get(configName.trim().toLowerCase(Locale.ROOT)));
    }

    /**
     * Like {@link #domainName} but also accepting the forms other tools write: without the
     * {@code hmac-} prefix ({@code sha256}, as ExternalDNS's --rfc2136-tsig-secret-alg) and the
     * full MD5 name ({@code hmac-md5.sig-alg.reg.int}).
     */
    public static Optional<String> domainNameLenient(String name) {
        String a = name.trim().toLowerCase(Locale.ROOT);
        if (a.endsWith(".")) a = a.substring(0, a.length() - 1);
        if (a.startsWith("hmac-md5")) a = "hmac-md5";
        if (!a.startsWith("hmac-")) a = "hmac-" + a;
        return domainName(a);
    }

    /** The accepted configuration names, sorted, for error messages. */
    public static String names() {
        return String.join(", ", new TreeMap<>(DOMAIN_NAMES).keySet());
    }
}
