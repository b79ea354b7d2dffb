package io.meshdns.dns.dynamic;

import io.smallrye.config.ConfigMapping;

import java.util.List;
import java.util.Optional;

/** Dynamic (RFC 2136) zones: which zones accept UPDATEs, the TSIG keys, and where the journals live. */
@ConfigMapping(prefix = "meshdns.dns")
public interface DynamicConfig {

    String DYNAMIC_ZONES = "meshdns.dns.dynamic-zones";
    String TSIG_KEYS = "meshdns.dns.tsig-keys";
    String JOURNAL_DIR = "meshdns.dns.journal-dir";
    String ALLOW_TRANSFER = "meshdns.dns.dynamic.allow-transfer";
    String ALLOW_TRUNCATED_MAC = "meshdns.dns.tsig.allow-truncated-mac";

    /** Zone names that accept TSIG-signed UPDATEs and AXFR, e.g. {@code mesh.example}. */
    Optional<List<String>> dynamicZones();

    /** {@code name:algorithm:base64-secret}, e.g. {@code exposure:hmac-sha256:c2VjcmV0...}. */
    Optional<List<String>> tsigKeys();

    /** One journal file per dynamic zone; required when dynamic-zones is set. */
    Optional<String> journalDir();

    Dynamic dynamic();

    Tsig tsig();

    interface Tsig {
        /**
         * {@code true} (default): a MAC truncated to a length RFC 8945 section 5.2.2.1 permits (at least the larger of
         * 10 bytes and half the hash) is accepted; {@code false}: any truncated MAC is refused with BADTRUNC.
         */
        Optional<String> allowTruncatedMac();
    }

    interface Dynamic {
        /**
         * CIDRs that may AXFR a dynamic zone without TSIG. Default: none, so only requests signed with
         * a configured key get a transfer.
         */
        Optional<List<String>> allowTransfer();
    }
}
