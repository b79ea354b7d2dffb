package io.meshdns.exposure.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.source.Desired;
import io.meshdns.exposure.sync.Reconciler;
import io.meshdns.exposure.testing.Rfc2136Targets;
import io.meshdns.testsupport.dns.BindServer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.CRC32;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Taking over a zone ExternalDNS wrote with {@code --txt-encrypt-enabled}: real BIND9 seeded with A records and their
 * encrypted typed claims, sealed here the way endpoint/crypto.go seals them (gzip with Go's header, best compression;
 * AES-256-GCM, 12-byte nonce in front; base64) without meshdns's codec. The first pass changes nothing; a changed
 * target keeps ExternalDNS's claim text byte for byte; a new record's claim is written encrypted; a claim sealed under
 * another key is someone else's and never touched.
 */
class EncryptedTakeOverBindTest {

    static final String KEY = "passphrasewhichneedstobe32bytes!";
    static final String OTHER_KEY = "ZPitL0NGVQBZbTD6DwXJzD8RiStSazzYXQsdUowLURY=";

    static String shopClaim;
    static String webClaim;
    static BindServer bind;

    /** endpoint/crypto.go's EncryptText, written out independently: base64(nonce ‖ AES-GCM(gzip(text))). */
    static String sealAsExternalDns(String text, byte[] key, byte[] nonce) throws Exception {
        byte[] plain = text.getBytes(StandardCharsets.UTF_8);
        var gz = new ByteArrayOutputStream();
        // Go's gzip header at BestCompression: no mtime, XFL 2, OS 255 (unknown)
        gz.write(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 2, (byte) 0xff});
        var deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
        try (var out = new DeflaterOutputStream(gz, deflater)) {
            out.write(plain);
        }
        var crc = new CRC32();
        crc.update(plain);
        long c = crc.getValue();
        gz.write(new byte[] {(byte) c, (byte) (c >> 8), (byte) (c >> 16), (byte) (c >> 24),
                (byte) plain.length, (byte) (plain.length >> 8), (byte) (plain.length >> 16), (byte) (plain.length >> 24)});
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
        byte[] sealed = cipher.doFinal(gz.toByteArray());
        byte[] all = new byte[nonce.length + sealed.length];
        System.arraycopy(nonce, 0, all, 0, nonce.length);
        System.arraycopy(sealed, 0, all, nonce.length, sealed.length);
        return Base64.getEncoder().encodeToString(all);
    }

    @BeforeAll
    static void start() throws Exception {
        shopClaim = sealAsExternalDns("heritage=external-dns,external-dns/owner=ext,external-dns/resource=ingress/default/shop",
                KEY.getBytes(StandardCharsets.UTF_8), "nonce-shop-1".getBytes(StandardCharsets.UTF_8));
        webClaim = sealAsExternalDns("heritage=external-dns,external-dns/owner=ext,external-dns/resource=ingress/default/web",
                Base64.getDecoder().decode(OTHER_KEY), "nonce-web-01".getBytes(StandardCharsets.UTF_8));
        bind = new BindServer("hmac-sha256", List.of("enc.test"));
        bind.start("""
                shop 0 IN A 203.0.113.50
                a-shop 0 IN TXT "%s"
                web 0 IN A 203.0.113.51
                a-web 0 IN TXT "%s"
                foreign 0 IN A 192.0.2.99
                """.formatted(shopClaim, webClaim));
    }

    @AfterAll
    static void stop() throws Exception {
        bind.close();
    }

    static Endpoint a(String name, String ip, String resource) {
        return new Endpoint(name + ".enc.test", "A", List.of(ip), 0, Map.of(Endpoint.RESOURCE_LABEL, resource), "");
    }

    @Test
    void takesOverAnEncryptedZoneWithoutChurnAndLeavesWhatItCannotReadAlone() throws Exception {
        var codec = ClaimCodec.of(true, Optional.of(KEY));
        var reconciler = new Reconciler(new TxtRegistry(Rfc2136Targets.provider(bind, List.of("enc.test")), "ext", TxtNameMapper.plain(), 0,
                Set.of(), codec), Policy.SYNC, DomainFilter.ALL, false);

        var first = reconciler.reconcile(Desired.of(a("shop", "203.0.113.50", "ingress/default/shop"), a("web", "203.0.113.99", "ingress/default/web")));
        assertTrue(first.changes().isEmpty(), "no churn: " + first.changes().describe());
        assertTrue(first.ops().isEmpty(), first.ops().toString());
        assertEquals(List.of("203.0.113.51"), bind.dig("web.enc.test", "A"), "a claim this key cannot open is not ours: web is not touched");
        assertEquals(List.of("\"" + webClaim + "\""), bind.dig("a-web.enc.test", "TXT"));

        var moved = reconciler.reconcile(Desired.of(a("shop", "203.0.113.60", "ingress/default/shop"), a("web", "203.0.113.99", "ingress/default/web"),
                a("new", "203.0.113.70", "ingress/default/new")));
        assertFalse(moved.changes().isEmpty());
        assertEquals(List.of("203.0.113.60"), bind.dig("shop.enc.test", "A"));
        assertEquals(List.of("\"" + shopClaim + "\""), bind.dig("a-shop.enc.test", "TXT"), "ExternalDNS's claim text kept byte for byte");
        List<String> newClaim = bind.dig("a-new.enc.test", "TXT");
        assertEquals(1, newClaim.size());
        assertFalse(newClaim.get(0).contains("heritage"), "written encrypted: " + newClaim);
        assertEquals("heritage=external-dns,external-dns/owner=ext,external-dns/resource=ingress/default/new",
                codec.decode(newClaim.get(0)).orElseThrow().serialize());
        assertTrue(reconciler.reconcile(Desired.of(a("shop", "203.0.113.60", "ingress/default/shop"), a("web", "203.0.113.99", "ingress/default/web"),
                a("new", "203.0.113.70", "ingress/default/new"))).changes().isEmpty(), "stable once written");

        reconciler.reconcile(Desired.of(a("web", "203.0.113.99", "ingress/default/web")));
        assertEquals(List.of(), bind.dig("shop.enc.test", "A"));
        assertEquals(List.of(), bind.dig("a-shop.enc.test", "TXT"));
        assertEquals(List.of(), bind.dig("a-new.enc.test", "TXT"));
        assertEquals(List.of("203.0.113.51"), bind.dig("web.enc.test", "A"));
        assertEquals(List.of("\"" + webClaim + "\""), bind.dig("a-web.enc.test", "TXT"));
        assertEquals(List.of("192.0.2.99"), bind.dig("foreign.enc.test", "A"));
    }
}
