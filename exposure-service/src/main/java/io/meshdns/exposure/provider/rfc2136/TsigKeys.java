package io.meshdns.exposure.provider.rfc2136;

import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import org.xbill.DNS.Name;
import org.xbill.DNS.TSIG;

/** Builds dnsjava TSIG keys from config values, failing with the config key's name on bad input. */
public final class TsigKeys {

    private static final Map<String, Name> ALGORITHMS = Map.of(
            "hmac-md5", TSIG.HMAC_MD5,
            "hmac-sha1", TSIG.HMAC_SHA1,
            "hmac-sha224", TSIG.HMAC_SHA224,
            "hmac-sha256", TSIG.HMAC_SHA256,
            "hmac-sha384", TSIG.HMAC_SHA384,
            "hmac-sha512", TSIG.HMAC_SHA512);

    private TsigKeys() {
    }

    /** @param algorithm "hmac-sha256" (also accepted: "sha256", "hmac-md5.sig-alg.reg.int") */
    public static TSIG create(String keyName, String base64Secret, String algorithm) {
        String a = algorithm.trim().toLowerCase(Locale.ROOT);
        if (a.startsWith("hmac-md5")) a = "hmac-md5";
        if (!a.startsWith("hmac-")) a = "hmac-" + a;
        Name alg = ALGORITHMS.get(a);
        if (alg == null) {
            throw new IllegalArgumentException("meshdns.exposure.rfc2136.tsig-algorithm: '" + algorithm
                    + "' is not one of " + String.join(", ", new java.util.TreeSet<>(ALGORITHMS.keySet())));
        }
        try {
            Base64.getDecoder().decode(base64Secret.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("meshdns.exposure.rfc2136.tsig-secret: not valid base64");
        }
        String name = keyName.endsWith(".") ? keyName : keyName + ".";
        try {
            return new TSIG(alg, Name.fromString(name), base64Secret.trim());
        } catch (Exception e) {
            throw new IllegalArgumentException("meshdns.exposure.rfc2136.tsig-key-name: '" + keyName + "' is not a DNS name", e);
        }
    }
}
