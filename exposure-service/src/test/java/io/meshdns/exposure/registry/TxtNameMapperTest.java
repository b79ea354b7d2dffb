package io.meshdns.exposure.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The names and values must match ExternalDNS's TXT registry byte for byte. */
class TxtNameMapperTest {

    @Test
    void typedAndLegacyNamesLikeExternalDns() {
        var plain = TxtNameMapper.plain();
        assertEquals("a-web.example.org", plain.typedName("Web.Example.org.", "A"));
        assertEquals("cname-web.example.org", plain.typedName("web.example.org", "CNAME"));
        assertEquals("srv-registry.nsm-system.example.org", plain.typedName("registry.nsm-system.example.org", "SRV"));
        assertEquals("web.example.org", plain.legacyName("web.example.org"));

        var prefix = new TxtNameMapper("txt.", "");
        assertEquals("txt.aaaa-web.example.org", prefix.typedName("web.example.org", "AAAA"));
        assertEquals("txt.web.example.org", prefix.legacyName("web.example.org"));

        var templated = new TxtNameMapper("%{record_type}-own.", "");
        assertEquals("cname-own.web.example.org", templated.typedName("web.example.org", "CNAME"));

        var suffix = new TxtNameMapper("", "-%{record_type}");
        assertEquals("web-a.example.org", suffix.typedName("web.example.org", "A"));
        var plainSuffix = new TxtNameMapper("", "-txt");
        assertEquals("a-web-txt.example.org", plainSuffix.typedName("web.example.org", "A"));
        assertEquals("web-txt.example.org", plainSuffix.legacyName("web.example.org"));
    }

    /** ExternalDNS's toEndpointName: a TXT name with a type where the mapper puts it belongs to that typed RRset. */
    @Test
    void typedNamesAreRecognisedForEveryAffix() {
        var plain = TxtNameMapper.plain();
        assertTrue(plain.isTypedName("a-s8.example.org"));
        assertTrue(plain.isTypedName("cname-www.example.org"));
        assertTrue(!plain.isTypedName("s8.example.org"));
        assertTrue(!plain.isTypedName("ab-s8.example.org"));
        assertTrue(!plain.isTypedName("a-.example.org"));
        assertTrue(new TxtNameMapper("txt.", "").isTypedName("txt.aaaa-web.example.org"));
        assertTrue(!new TxtNameMapper("txt.", "").isTypedName("txt.web.example.org"));
        assertTrue(new TxtNameMapper("%{record_type}-own.", "").isTypedName("cname-own.web.example.org"));
        assertTrue(new TxtNameMapper("", "-%{record_type}").isTypedName("web-a.example.org"));
        assertTrue(!new TxtNameMapper("", "-%{record_type}").isTypedName("web.example.org"));
        assertTrue(new TxtNameMapper("", "-txt").isTypedName("a-web-txt.example.org"));
        assertTrue(!new TxtNameMapper("", "-txt").isTypedName("web-txt.example.org"));
    }

    @Test
    void claimValuesRoundTripAndReadExternalDnsText() {
        var c = OwnershipClaim.parse("\"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/my-ingress\"").orElseThrow();
        assertEquals("default", c.owner());
        assertEquals("ingress/default/my-ingress", c.resource());
        assertTrue(c.targets().isEmpty());
        assertEquals("heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/my-ingress", c.serialize());

        var shared = new OwnershipClaim("cluster-a", "service/nsm-system/registry", Optional.of(List.of("192.0.2.1", "2001:db8::1")), new TreeMap<>());
        assertEquals("heritage=external-dns,external-dns/owner=cluster-a,external-dns/resource=service/nsm-system/registry,external-dns/targets=192.0.2.1;2001:db8::1",
                shared.serialize());
        assertEquals(shared, OwnershipClaim.parse(shared.serialize()).orElseThrow());
        assertTrue(OwnershipClaim.parse("v=spf1 -all").isEmpty());
    }

    /** A target of control characters only is no target: read once, written and read again, the claim is the same. */
    @Test
    void aTargetThatTrimsToNothingIsDroppedOnTheFirstRead() {
        var c = OwnershipClaim.parse("heritage=external-dns,external-dns/owner=,external-dns/targets=\u0017;\u0017\uffff\uffff0")
                .orElseThrow();
        assertEquals(Optional.of(List.of("\uffff\uffff0")), c.targets(), "trimmed, and the one that trims to nothing gone");
        assertEquals(c, OwnershipClaim.parse(c.serialize()).orElseThrow());
    }

    /**
     * Spaces around a value mean nothing: a label in the middle of the text kept them, and written back last
     * (labels are sorted) the outer trim took them, so the claim read back differed and every pass would
     * rewrite the record.
     */
    @Test
    void spacesAroundALabelValueAreNotPartOfTheClaim() {
        var c = OwnershipClaim.parse("heritage=external-dns,external-dns/resource=  7 ,external-dns/owner= x\t,external-dns/zz= \"  7\" ")
                .orElseThrow();
        assertEquals("x", c.owner());
        assertEquals("7", c.resource());
        assertEquals("\"  7\"", c.otherLabels().get("zz"), "spaces inside quotes are the value's own");
        assertEquals(c, OwnershipClaim.parse(c.serialize()).orElseThrow());
    }
}
