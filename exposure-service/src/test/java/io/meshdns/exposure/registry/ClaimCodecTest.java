package io.meshdns.exposure.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Encrypted ownership claims in ExternalDNS's format (endpoint/crypto.go); the facts are ExternalDNS's own test values. */
class ClaimCodecTest {

    /** ExternalDNS's endpoint/crypto_test.go: this key … */
    static final String EXTERNAL_DNS_KEY = "s%zF`.*'5`9.AhI2!B,.~hmbs^.*TL?;";
    /** … opens this text (sealed by ExternalDNS: Go's gzip and AES-GCM) … */
    static final String EXTERNAL_DNS_SEALED = "0Mfzf6wsN8llrfX0ucDZ6nlc2+QiQfKKedjPPLu5atb2I35L9nUZeJcCnuLVW7CVW3K0h94vSuBLdXnMrj8Vcm0M09shxaoF48IcCpD03XtQbKXqk2hPbsW6+JybvplHIQGr16/PcjUSObGmR9yjf38+qEltApkKvrPjsyw43BX4eE10rL0Bln33UJD7/w+zazRDPFlAcbGtkt0ETKHnvyB3/aCddLipvrhjCXj2ZY/ktRF6h716kJRgXU10dCIQHFYU45MIdxI+k10HK3yZqhI2V0Gp2xjrFV/LRQ7/OS9SFee4asPWUYxbCEsnOzp8qc0dCPFSo1dtADzWnUZnsAcbnjtudT4milfLJc5CxDk1v3ykqQ/ajejwHjWQ7b8U6AsTErbezfdcqrb5IzkLgHb5TosnfrdDmNc9GcKfpsrCHbVY8KgNwMVdtwavLv7d9WM6sooUlZ3t0sABGkzagXQmPRvwLnkSOlie5XrnzWo8/8/4UByLga29CaXO";
    /** … into this. */
    static final String LOREM = "Lorem Ipsum is simply dummy text of the printing and typesetting industry. Lorem Ipsum has been the industry's standard dummy text ever since the 1500s, when an unknown printer took a galley of type and scrambled it to make a type specimen book. It has survived not only five centuries, but also the leap into electronic typesetting, remaining essentially unchanged. It was popularised in the 1960s with the release of Letraset sheets containing Lorem Ipsum passages, and more recently with desktop publishing software like Aldus PageMaker including versions of Lorem Ipsum.";

    static final OwnershipClaim CLAIM = new OwnershipClaim("ext", "ingress/default/shop", Optional.empty(), new TreeMap<>());

    @Test
    void opensWhatExternalDnsSealed() {
        var codec = ClaimCodec.of(true, Optional.of(EXTERNAL_DNS_KEY));
        String[] opened = codec.open(EXTERNAL_DNS_SEALED).orElseThrow();
        assertEquals(LOREM, opened[0]);
        assertTrue(EXTERNAL_DNS_SEALED.startsWith(opened[1].substring(0, 12)), "the nonce is the text's first 12 bytes");
        assertTrue(ClaimCodec.of(true, Optional.of("s'J!jD`].LC?g&Oa11AgTub,j48ts/96")).open(EXTERNAL_DNS_SEALED).isEmpty(), "a wrong key opens nothing");
        assertTrue(codec.open(LOREM).isEmpty(), "plain text is not sealed");
    }

    @Test
    void keysAsExternalDnsTakesThem() {
        // ExternalDNS's registry/txt/encryption_test.go: 32 bytes as text, or base64 of 32 bytes; anything else refused
        var plain = ClaimCodec.of(true, Optional.of("passphrasewhichneedstobe32bytes!"));
        var b64 = ClaimCodec.of(true, Optional.of("ZPitL0NGVQBZbTD6DwXJzD8RiStSazzYXQsdUowLURY="));
        assertTrue(plain.decode(plain.encode(CLAIM)).isPresent());
        assertTrue(b64.decode(b64.encode(CLAIM)).isPresent());
        assertTrue(plain.decode(b64.encode(CLAIM)).isEmpty(), "two different keys");
        var e = assertThrows(IllegalArgumentException.class,
                () -> ClaimCodec.of(true, Optional.of("123456789012345678901234567890asdfasdfasdfasdfa12")));
        assertTrue(e.getMessage().startsWith("meshdns.exposure.txt-encrypt-aes-key: "), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ClaimCodec.of(true, Optional.empty()));
        assertTrue(e.getMessage().startsWith("meshdns.exposure.txt-encrypt-aes-key: "), e.getMessage());
        assertEquals(ClaimCodec.PLAIN, ClaimCodec.of(false, Optional.of(" ")));
    }

    @Test
    void theNonceIsKeptSoAClaimWrittenAgainIsTheSameText() {
        var codec = ClaimCodec.of(true, Optional.of("passphrasewhichneedstobe32bytes!"));
        String first = codec.encode(CLAIM);
        assertNotEquals(first, codec.encode(CLAIM), "a new claim gets a new nonce");
        OwnershipClaim read = codec.decode("\"" + first + "\"").orElseThrow();
        assertEquals(CLAIM.serialize(), read.serialize(), "the nonce is not part of the claim's text");
        assertEquals(first, codec.encode(read), "re-encoded under the nonce it was read with");
        var moved = new OwnershipClaim(read.owner(), "ingress/default/other", read.targets(), read.otherLabels());
        String again = codec.encode(moved);
        assertEquals(first.substring(0, 16), again.substring(0, 16), "a changed claim keeps its nonce");
        assertEquals("heritage=external-dns,external-dns/owner=ext,external-dns/resource=ingress/default/other",
                codec.decode(again).orElseThrow().serialize());
    }

    @Test
    void readsPlainClaimsWithAKeyAndWritesPlainWithoutEncryption() {
        var readOnly = ClaimCodec.of(false, Optional.of("passphrasewhichneedstobe32bytes!"));
        var writer = ClaimCodec.of(true, Optional.of("passphrasewhichneedstobe32bytes!"));
        assertEquals(CLAIM.serialize(), readOnly.encode(CLAIM), "a key alone does not encrypt");
        assertEquals(CLAIM, readOnly.decode(CLAIM.serialize()).orElseThrow());
        assertEquals(CLAIM.serialize(), readOnly.decode(writer.encode(CLAIM)).orElseThrow().serialize(), "a key alone reads encrypted claims");
        assertTrue(ClaimCodec.PLAIN.decode(writer.encode(CLAIM)).isEmpty(), "without a key an encrypted claim is no claim");
        for (String junk : List.of("", "\"\"", "AAAA", Base64.getEncoder().encodeToString(new byte[40]), "heritage=external-dns,broken")) {
            assertTrue(writer.decode(junk).isEmpty(), junk);
        }
    }
}
