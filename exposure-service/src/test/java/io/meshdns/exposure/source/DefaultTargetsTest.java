package io.meshdns.exposure.source;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.exposure.testing.DnsEndpoints;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** ExternalDNS's --default-targets / --force-default-targets (source/wrappers/multisource.go) over DNSEndpoint entries. */
class DefaultTargetsTest {

    static final HasMetadata DNS_ENDPOINT = DnsEndpoints.object("shop", "edge",
            "{dnsName: empty.example.org, recordType: A, recordTTL: 60}",
            "{dnsName: alias.example.org, recordType: CNAME}",
            "{dnsName: given.example.org, recordType: A, targets: [192.0.2.1]}",
            "{dnsName: text.example.org, recordType: TXT, targets: [hello]}");

    static Set<String> run(List<String> defaults, boolean force) {
        var settings = new SourceSettings(Optional.empty(), false, Optional.empty(), defaults, force);
        return SourceLines.of(new ObjectTranslation(settings, Set.of("crd")).translate(List.of(DNS_ENDPOINT)));
    }

    @Test
    void emptyTargetsTakeTheDefaults() {
        assertEquals(Set.of("alias.example.org 0 A [203.0.113.1] crd/shop/edge", "alias.example.org 0 AAAA [2001:db8::1] crd/shop/edge",
                        "empty.example.org 60 A [203.0.113.1] crd/shop/edge", "empty.example.org 60 AAAA [2001:db8::1] crd/shop/edge",
                        "given.example.org 0 A [192.0.2.1] crd/shop/edge", "text.example.org 0 TXT [hello] crd/shop/edge"),
                run(List.of("203.0.113.1", "2001:db8::1"), false));
        assertEquals(Set.of("alias.example.org 0 CNAME [lb.example.net] crd/shop/edge", "empty.example.org 60 CNAME [lb.example.net] crd/shop/edge",
                "given.example.org 0 A [192.0.2.1] crd/shop/edge", "text.example.org 0 TXT [hello] crd/shop/edge"), run(List.of("lb.example.net"), false));
    }

    @Test
    void forcedDefaultsReplaceEveryAddressTarget() {
        assertEquals(Set.of("alias.example.org 0 A [203.0.113.1] crd/shop/edge", "empty.example.org 60 A [203.0.113.1] crd/shop/edge",
                "given.example.org 0 A [203.0.113.1] crd/shop/edge", "text.example.org 0 TXT [hello] crd/shop/edge"), run(List.of("203.0.113.1"), true));
    }

    static final HasMetadata MIXED = DnsEndpoints.object("shop", "mixed",
            "{dnsName: web.example.org, recordType: A, targets: [192.0.2.1], recordTTL: 60}",
            "{dnsName: web.example.org, recordType: AAAA, targets: [\"2001:db8::5\"], recordTTL: 60}",
            "{dnsName: web.example.org, recordType: TXT, targets: [hello]}",
            "{dnsName: _sip._udp.web.example.org, recordType: SRV, targets: [\"10 5 5060 web.example.org\"]}");

    /** Forced defaults replace a name's address records once, however many address types it had; TXT and SRV keep theirs. */
    @Test
    void forcedDefaultsReplaceANamesAddressesOnceAndLeaveTxtAndSrvAsWritten() {
        var settings = new SourceSettings(Optional.empty(), false, Optional.empty(), List.of("203.0.113.1", "2001:db8::1"), true);
        var out = new ObjectTranslation(settings, Set.of("crd")).translate(List.of(MIXED));
        var lines = out.endpoints().stream().map(e -> e.dnsName() + " " + e.ttl() + " " + e.recordType() + " " + e.targets()).sorted().toList();
        assertEquals(List.of("_sip._udp.web.example.org 0 SRV [10 5 5060 web.example.org]", "web.example.org 0 TXT [hello]",
                "web.example.org 60 A [203.0.113.1]", "web.example.org 60 AAAA [2001:db8::1]"), lines);
    }

    @Test
    void withoutDefaultsAnEmptyEntryStaysEmpty() {
        assertEquals(Set.of("alias.example.org 0 CNAME [] crd/shop/edge", "empty.example.org 60 A [] crd/shop/edge",
                "given.example.org 0 A [192.0.2.1] crd/shop/edge", "text.example.org 0 TXT [hello] crd/shop/edge"), run(List.of(), false));
    }
}
