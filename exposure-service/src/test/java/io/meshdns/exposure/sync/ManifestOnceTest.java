package io.meshdns.exposure.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.provider.webhook.WebhookProvider;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.registry.TxtRegistry;
import io.meshdns.exposure.source.SourceSettings;
import io.meshdns.exposure.testing.DnsEndpoints;
import io.meshdns.testsupport.webhook.StrictWebhookProvider;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** meshdns.exposure.manifest-dirs + once: no cluster, one pass, the plan printed, an exit status. */
class ManifestOnceTest {

    static final String MANIFESTS = """
            apiVersion: v1
            kind: Service
            metadata:
              name: web
              namespace: shop
              annotations:
                external-dns.kubernetes.io/hostname: web.example.org
            spec:
              type: LoadBalancer
              ports: [{port: 80}]
            status:
              loadBalancer:
                ingress: [{ip: 203.0.113.10}]
            ---
            apiVersion: externaldns.k8s.io/v1alpha1
            kind: DNSEndpoint
            metadata:
              name: records
            spec:
              endpoints:
              - {dnsName: crd.example.org, recordType: A, targets: [198.51.100.5], recordTTL: 60}
            """;

    @Test
    void onePassFromManifestsPrintsThePlanAndExitsWithAStatus(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("app.yaml"), MANIFESTS);
        Files.writeString(dir.resolve("broken.yaml"), "kind: Service\nmetadata: [this is not: yaml");
        Files.writeString(dir.resolve("deep.yaml"), "a: ".repeat(1) + "[".repeat(20000) + "]".repeat(20000));
        try (var webhook = new StrictWebhookProvider(List.of("example.org"))) {
            var sources = new ManifestSources(List.of(dir), new SourceSettings(Optional.empty(), false, Optional.empty()),
                    Set.of("service", "ingress", "crd"));
            var provider = new WebhookProvider(URI.create(webhook.url()), Duration.ofSeconds(5), 3);

            var dryOut = new ByteArrayOutputStream();
            var dry = new Reconciler(new TxtRegistry(provider, "laptop", TxtNameMapper.plain(), 0), Policy.SYNC, DomainFilter.ALL, true);
            int dryStatus = OncePass.run(sources, List.of(dry), true, new PrintStream(dryOut, true, StandardCharsets.UTF_8));
            String plan = dryOut.toString(StandardCharsets.UTF_8);
            assertEquals(OncePass.OK, dryStatus, plan);
            assertTrue(plan.contains("CREATE web.example.org") && plan.contains("CREATE crd.example.org 60 A"), plan);
            assertEquals(List.of(), webhook.targets("web.example.org", "A"), "dry-run wrote nothing");

            var out = new ByteArrayOutputStream();
            var r = new Reconciler(new TxtRegistry(provider, "laptop", TxtNameMapper.plain(), 0), Policy.SYNC, DomainFilter.ALL, false);
            assertEquals(OncePass.OK, OncePass.run(sources, List.of(r), false, new PrintStream(out, true, StandardCharsets.UTF_8)));
            assertEquals(List.of("203.0.113.10"), webhook.targets("web.example.org", "A"), "broken files skipped, the rest published");
            assertEquals(List.of("198.51.100.5"), webhook.targets("crd.example.org", "A"));

            Files.writeString(dir.resolve("bad.yaml"), DnsEndpoints.manifest("shop", "bad",
                    "{dnsName: bad.example.org, recordType: A, targets: [198.51.100.6], recordTTL: 4294967295}"));
            var out2 = new ByteArrayOutputStream();
            assertEquals(OncePass.OBJECT_PROBLEMS, OncePass.run(sources, List.of(r), false, new PrintStream(out2, true, StandardCharsets.UTF_8)));
            assertTrue(out2.toString(StandardCharsets.UTF_8).contains("DNSEndpoint shop/bad: InvalidEndpoint"), out2.toString(StandardCharsets.UTF_8));

            webhook.close();
            var out3 = new ByteArrayOutputStream();
            var down = new Reconciler(new TxtRegistry(new WebhookProvider(URI.create(webhook.url()), Duration.ofSeconds(2), 1), "laptop",
                    TxtNameMapper.plain(), 0), Policy.SYNC, DomainFilter.ALL, false);
            assertEquals(OncePass.TARGET_FAILED, OncePass.run(sources, List.of(down), false, new PrintStream(out3, true, StandardCharsets.UTF_8)));
        }
    }
}
