package io.meshdns.discovery.manifest;

import io.meshdns.discovery.kinds.DiscoveryKinds;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.discovery.translate.Translation;

/**
 * The manifest file source's parse path: one file's bytes → YAML/JSON documents → fabric8 objects
 * → catalog translations, with the shipped limits. Any input must end in a {@link ManifestFile.Rejected}
 * with a reason, or objects that each translate to a {@link Translation}; any throwable (a parser's
 * StackOverflowError or OutOfMemoryError included) or a hang is a finding.
 */
class ManifestFileFuzz {
    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void parse(byte[] content) {
        ManifestFile.Result result = ManifestFile.parse(content, ManifestFile.Limits.DEFAULT);
        if (result instanceof ManifestFile.Rejected rejected) {
            if (rejected.reason() == null || rejected.reason().isBlank()) throw new AssertionError("rejected without a reason");
            return;
        }
        for (HasMetadata obj : ((ManifestFile.Loaded) result).objects()) {
            DiscoveryKinds.kindOf(obj);
            Translation t = DiscoveryKinds.translate("fuzz", obj);
            if (t == null) throw new AssertionError("no translation for " + obj);
        }
    }
}
