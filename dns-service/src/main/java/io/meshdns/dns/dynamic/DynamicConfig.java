package io.meshdns.dns.dynamic;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;

import java.util.List;
import java.util.Optional;

/** Dynamic (RFC 2136) zones: which zones accept UPDATEs, the TSIG keys, and where the journals live. */
@ConfigMapping(prefix = "meshdns.dns")
public interface DynamicConfig {

    String DYNAMIC_ZONES = "meshdns.dns.dynamic-zones";
    String TSIG_KEYS = "meshdns.dns.tsig-keys";
    String JOURNAL_DIR = "meshdns.dns.journal-dir";
    String ALLOW_TRANSFER = "meshdns.dns.dynamic.allow-transfer";

    /** Zone names that accept TSIG-signed UPDATEs and AXFR, e.g. {@code mesh.example}. */
    @WithName("dynamic-zones")
    Optional<List<String>> dynamicZones();

    /** {@code name:algorithm:base64-secret}, e.g. {@code exposure:hmac-sha256:c2VjcmV0...}. */
    @WithName("tsig-keys")
    Optional<List<String>> tsigKeys();

    /** One journal file per dynamic zone; required when dynamic-zones is set. */
    @WithName("journal-dir")
    Optional<String> journalDir();

    Dynamic dynamic();

    interface Dynamic {
        /**
         * CIDRs that may AXFR a dynamic zone without TSIG. Default: none, so only requests signed with
         * a configured key get a transfer.
         */
        @WithName("allow-transfer")
        Optional<List<String>> allowTransfer();
    }
}
