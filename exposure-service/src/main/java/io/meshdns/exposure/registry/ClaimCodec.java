package io.meshdns.exposure.registry;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jboss.logging.Logger;

/**
 * An ownership TXT string ↔ its {@link OwnershipClaim}, plain or encrypted the way ExternalDNS's
 * {@code --txt-encrypt-enabled} writes it (endpoint/crypto.go): the claim text gzipped (best compression), sealed with
 * AES-256-GCM under a 12-byte nonce, and stored as base64 of {@code nonce ‖ ciphertext ‖ tag}.
 * <p>
 * The nonce of a claim read is kept as the claim's {@value #NONCE_LABEL} label (never written in the text), and a claim
 * written again reuses it, as ExternalDNS does, so the same claim encrypts to the same text pass after pass (a fresh
 * nonce each time would rewrite every claim). A new claim gets a random nonce.
 * <p>
 * With a key configured, claims are read encrypted or plain (a zone may hold both while a migration runs); without one,
 * and for a text the key does not open, an encrypted claim is not a claim: it is someone else's TXT and never touched.
 * Such a text at a claim name is logged as a warning once.
 */
public final class ClaimCodec {

    private static final Logger LOG = Logger.getLogger(ClaimCodec.class);
    /** ExternalDNS's label for the nonce of a claim it decrypted. */
    public static final String NONCE_LABEL = "txt-encryption-nonce";
    static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    /** A claim is well under 1 KiB; more inflated than this is not one of ours (and not a gzip bomb we keep inflating). */
    private static final int MAX_PLAIN_BYTES = 64 * 1024;
    private static final int MAX_WARNED = 10_000;

    public static final ClaimCodec PLAIN = new ClaimCodec(null, false);

    private final SecretKeySpec key;
    private final boolean encrypt;
    /**
     * Only an encrypting codec has one: {@link #PLAIN} is a constant, and a {@code SecureRandom} in a constant would be
     * seeded once at image build time and shared by every run of a native executable.
     */
    private final SecureRandom random;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    private ClaimCodec(byte[] key, boolean encrypt) {
        this.key = key == null ? null : new SecretKeySpec(key, "AES");
        this.encrypt = encrypt;
        this.random = encrypt ? new SecureRandom() : null;
    }

    /**
     * From {@code meshdns.exposure.txt-encrypt-enabled} and {@code meshdns.exposure.txt-encrypt-aes-key}: the key is 32
     * bytes as text, or base64 of 32 bytes (ExternalDNS's rule). A key without encryption enabled still reads encrypted
     * claims. Fails naming the key.
     */
    public static ClaimCodec of(boolean enabled, Optional<String> aesKey) {
        String k = aesKey.map(String::trim).orElse("");
        if (k.isEmpty()) {
            if (enabled) {
                throw new IllegalArgumentException("meshdns.exposure.txt-encrypt-aes-key: required when meshdns.exposure.txt-encrypt-enabled=true");
            }
            return PLAIN;
        }
        byte[] raw = k.getBytes(StandardCharsets.UTF_8);
        if (raw.length != 32) {
            try {
                raw = Base64.getDecoder().decode(k);
            } catch (IllegalArgumentException e) {
                raw = new byte[0];
            }
            if (raw.length != 32) {
                throw new IllegalArgumentException("meshdns.exposure.txt-encrypt-aes-key: must be 32 bytes, as text or base64-encoded");
            }
        }
        return new ClaimCodec(raw, enabled);
    }

    public boolean encrypts() {
        return encrypt;
    }

    /** The claim a TXT string holds (its nonce as a label when it was encrypted); empty when it holds none we can read. */
    public Optional<OwnershipClaim> decode(String text) {
        if (key != null) {
            Optional<String[]> opened = open(unquote(text));
            if (opened.isPresent()) {
                Optional<OwnershipClaim> claim = OwnershipClaim.parse(opened.get()[0]);
                return claim.map(c -> {
                    var labels = new TreeMap<>(c.otherLabels());
                    labels.put(NONCE_LABEL, opened.get()[1]);
                    return new OwnershipClaim(c.owner(), c.resource(), c.targets(), labels);
                });
            }
        }
        return OwnershipClaim.parse(text);
    }

    /** The TXT string for a claim: encrypted under its nonce label (a new random one if it has none) when encryption is on. */
    public String encode(OwnershipClaim claim) {
        String plain = claim.serialize();
        if (!encrypt) return plain;
        String nonce = claim.otherLabels().get(NONCE_LABEL);
        byte[] n = nonce == null ? null : decodeNonce(nonce);
        if (n == null) {
            n = new byte[NONCE_BYTES];
            random.nextBytes(n);
        }
        return seal(plain, n);
    }

    /** ExternalDNS's format, for a given nonce. */
    String seal(String plain, byte[] nonce) {
        try {
            var gz = new ByteArrayOutputStream();
            try (var out = new GZIPOutputStream(gz) {
                {
                    def.setLevel(Deflater.BEST_COMPRESSION);
                }
            }) {
                out.write(plain.getBytes(StandardCharsets.UTF_8));
            }
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            byte[] sealed = c.doFinal(gz.toByteArray());
            byte[] all = Arrays.copyOf(nonce, nonce.length + sealed.length);
            System.arraycopy(sealed, 0, all, nonce.length, sealed.length);
            return Base64.getEncoder().encodeToString(all);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot encrypt an ownership claim", e);
        }
    }

    /**
     * A text at a claim name that looks like an encrypted claim (base64 longer than a nonce and a tag) which this codec
     * cannot open: logged once, since it means a wrong or missing key, and the RRset it should claim is nobody's to us.
     */
    public void warnIfUnreadable(String name, String text) {
        String t = unquote(text);
        if (OwnershipClaim.parse(t).isPresent() || !looksSealed(t) || key != null && open(t).isPresent()) return;
        if (warned.size() > MAX_WARNED) warned.clear();
        if (warned.add(name + " " + t)) {
            LOG.warnf("TXT %s holds what looks like an encrypted ownership claim that %s: treated as someone else's record, never touched",
                    name, key == null ? "cannot be read without meshdns.exposure.txt-encrypt-aes-key" : "meshdns.exposure.txt-encrypt-aes-key does not open");
        }
    }

    private static boolean looksSealed(String t) {
        if (t.length() < 40 || !t.matches("[A-Za-z0-9+/]+={0,2}")) return false;
        try {
            return Base64.getDecoder().decode(t).length > NONCE_BYTES + TAG_BITS / 8;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** {plain text, base64 nonce}, or empty when the key does not open it. */
    Optional<String[]> open(String text) {
        try {
            byte[] data = Base64.getDecoder().decode(text);
            if (data.length <= NONCE_BYTES) return Optional.empty();
            byte[] nonce = Arrays.copyOf(data, NONCE_BYTES);
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            byte[] gz = c.doFinal(data, NONCE_BYTES, data.length - NONCE_BYTES);
            return Optional.of(new String[] {gunzip(gz), Base64.getEncoder().encodeToString(nonce)});
        } catch (IllegalArgumentException | GeneralSecurityException | IOException e) {
            return Optional.empty();
        }
    }

    private static String gunzip(byte[] gz) throws IOException {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            byte[] plain = in.readNBytes(MAX_PLAIN_BYTES + 1);
            if (plain.length > MAX_PLAIN_BYTES) throw new IOException("inflates beyond " + MAX_PLAIN_BYTES + " bytes");
            return new String(plain, StandardCharsets.UTF_8);
        }
    }

    private static byte[] decodeNonce(String nonce) {
        try {
            byte[] n = Base64.getDecoder().decode(nonce);
            return n.length == NONCE_BYTES ? n : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String unquote(String text) {
        String t = text.trim();
        return t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"") ? t.substring(1, t.length() - 1) : t;
    }
}
