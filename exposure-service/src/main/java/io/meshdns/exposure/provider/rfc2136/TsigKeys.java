package io.meshdns.exposure.provider.rfc2136;

import io.meshdns.model.TsigAlgorithms;
import java.util.Base64;
import org.xbill.DNS.Name;
import org.xbill.DNS.TSIG;

/** Builds dnsjava TSIG keys from config values (algorithms: the shared {@link TsigAlgorithms} table), failing with the config key's name on bad input. */
public final class TsigKeys {

    private TsigKeys() {
    }

    /** @param algorithm "hmac-sha256" (also accepted: "sha256", "hmac-md5.sig-alg.reg.int") */
    public static TSIG create(String keyName, String base64Secret, String algorithm) {
        Name alg = TsigAlgorithms.domainNameLenient(algorithm).map(TsigKeys::name).orElseThrow(() -> new IllegalArgumentException(
                "meshdns.exposure.rfc2136.tsig-algorithm: '" + algorithm + "' is not one of " + TsigAlgorithms.names()));
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

    private static Name name(String absolute) {
        try {
            return Name.fromString(absolute);
        } catch (org.xbill.DNS.TextParseException e) {
            throw new IllegalStateException(absolute, e);
        }
    }
}
