package io.meshdns.exposure.registry;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.util.Optional;

/**
 * Ownership TXT text as read from a zone ({@link OwnershipClaim#parse}): anything a zone holds, including other
 * tools' records. Not ours is {@code Optional.empty()}; ours must survive the write-back unchanged: the claim
 * parsed from {@link OwnershipClaim#serialize()} equals the claim (else every pass would rewrite the TXT record, or
 * a claim read back would name another owner or other targets). Any throwable is a finding.
 */
class OwnershipTxtFuzz {
    private static final String[] PREFIXES = {"heritage=external-dns,", "\"heritage=external-dns,", "heritage=external-dns", ""};
    private static final String[] LABELS = {"external-dns/owner=", "external-dns/resource=", "external-dns/targets=",
            "owner=", "targets=", "external-dns/", ",", ";", "=", "\"", " "};

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void parse(FuzzedDataProvider data) {
        StringBuilder text = new StringBuilder(data.pickValue(PREFIXES));
        int parts = data.consumeInt(0, 8);
        for (int i = 0; i < parts; i++) {
            text.append(data.consumeBoolean() ? data.pickValue(LABELS) : "").append(data.consumeString(24));
        }
        text.append(data.consumeRemainingAsString());
        Optional<OwnershipClaim> claim = OwnershipClaim.parse(text.toString());
        if (claim.isEmpty()) return;
        String written = claim.get().serialize();
        Optional<OwnershipClaim> back = OwnershipClaim.parse(written);
        if (back.isEmpty() || !back.get().equals(claim.get())) {
            throw new AssertionError("claim " + claim.get() + " written as '" + written + "' reads back as " + back);
        }
    }
}
