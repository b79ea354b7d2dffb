package io.meshdns.it.k8s;

import io.meshdns.testsupport.Commands;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.meshdns.testsupport.dns.BindServer;
import io.meshdns.testsupport.dns.LoopbackPorts;
import io.meshdns.it.k8s.ApiCalls.Grant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rendered manifests against a real kube-apiserver (Debian 12's Kubernetes 1.20.2, built by
 * bin/build-kube-apiserver) on Debian's etcd, both on loopback ports, with RBAC authorization and the
 * default admission chain. Every overlay renders with kubectl's own kustomize and applies with
 * client-side schema validation; then each ServiceAccount's rights, as the API server decides them,
 * must be exactly its service's api-calls.txt. Run with {@code mvn -Pkube-apiserver}.
 *
 * <p>1.20 is older than the manifests' minimum (k8s/README.md); what it lacks is adapted on a copy,
 * one named field each: PodDisruptionBudget policy/v1 (1.21) is applied as policy/v1beta1, the
 * DaemonSet's maxSurge (1.22) as maxUnavailable 1, and Service internalTrafficPolicy (1.22) is dropped.
 */
@Tag("kube-apiserver")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class KubeApiServerTest {
    private static final Path ROOT = Path.of(System.getProperty("meshdns.root", ".."));
    private static final String ADMIN_TOKEN = randomHex(16);
    private static Path work;
    private static Path kubectl;
    private static Process etcd;
    private static Process apiServer;
    private static int apiPort;

    @BeforeAll
    static void startApiServer() throws Exception {
        String built = run(Duration.ofMinutes(60), ROOT.resolve("bin/build-kube-apiserver").toString()).strip();
        Path bin = Path.of(built.substring(built.lastIndexOf('\n') + 1));
        kubectl = bin.resolve("kubectl");
        work = Files.createTempDirectory("meshdns-kube");

        int etcdPort = LoopbackPorts.pick();
        int peerPort = LoopbackPorts.pick();
        etcd = new ProcessBuilder("etcd", "--name", "it", "--data-dir", work.resolve("etcd").toString(),
                "--listen-client-urls", "http://127.0.0.1:" + etcdPort, "--advertise-client-urls", "http://127.0.0.1:" + etcdPort,
                "--listen-peer-urls", "http://127.0.0.1:" + peerPort, "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-cluster", "it=http://127.0.0.1:" + peerPort)
                .redirectErrorStream(true).redirectOutput(work.resolve("etcd.log").toFile()).start();

        run(Duration.ofMinutes(1), "openssl", "genrsa", "-out", work.resolve("sa.key").toString(), "2048");
        Files.writeString(work.resolve("tokens.csv"), ADMIN_TOKEN + ",admin,admin,\"system:masters\"\n");
        apiPort = LoopbackPorts.pick();
        apiServer = new ProcessBuilder(bin.resolve("kube-apiserver").toString(),
                "--etcd-servers", "http://127.0.0.1:" + etcdPort,
                "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
                "--secure-port", String.valueOf(apiPort), "--insecure-port", "0",
                "--cert-dir", work.resolve("certs").toString(),
                "--authorization-mode", "RBAC",
                "--token-auth-file", work.resolve("tokens.csv").toString(),
                "--service-account-key-file", work.resolve("sa.key").toString(),
                "--service-account-signing-key-file", work.resolve("sa.key").toString(),
                "--service-account-issuer", "https://kubernetes.default.svc",
                "--service-cluster-ip-range", "10.96.0.0/12")
                .redirectErrorStream(true).redirectOutput(work.resolve("apiserver.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (true) {
            if (!apiServer.isAlive()) throw new AssertionError("kube-apiserver exited:\n" + Files.readString(work.resolve("apiserver.log")));
            if (kubectlQuietly("get", "--raw", "/readyz").strip().equals("ok")) break;
            if (System.nanoTime() > deadline) throw new AssertionError("kube-apiserver not ready:\n" + Files.readString(work.resolve("apiserver.log")));
            Thread.sleep(500);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (Process p : new Process[] {apiServer, etcd}) {
            if (p == null) continue;
            p.destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) p.destroyForcibly().waitFor();
        }
        if (work != null) {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private static boolean applied;

    /** Renders and applies every overlay once (later ones over earlier ones, as an operator switching would). */
    private static synchronized void applyOverlays() throws Exception {
        if (applied) return;
        Path k8s = copyWithSecrets();
        for (String overlay : List.of("node-local", "cluster-ip", "coredns")) {
            String rendered = kubectl("kustomize", k8s.resolve("overlays").resolve(overlay).toString());
            Path file = work.resolve(overlay + ".yaml");
            Files.writeString(file, forThisServer(Manifests.parse(rendered)));
            // Client-side validation against the server's OpenAPI, then the server's own.
            String out = kubectl("apply", "--validate=true", "-f", file.toString());
            assertTrue(out.contains("daemonset.apps/dns-service"), overlay + ":\n" + out);
        }
        applied = true;
    }

    @Test
    void everyOverlayAppliesAndEachServiceAccountHoldsExactlyItsApiCalls() throws Exception {
        applyOverlays();

        for (String sa : ManifestsTest.SERVICES) {
            String user = "system:serviceaccount:" + ManifestsTest.NAMESPACE + ":" + sa;
            Set<Grant> listed = ApiCalls.listed(sa);
            // The server's answer to each listed call, one SubjectAccessReview each (what the
            // authorizer decides on a real request); cluster-wide rights asked in another namespace.
            for (Grant g : listed) {
                assertEquals("true", allowed(user, g), sa + " may not " + g);
            }
            // And nothing else: the rules the server holds for the account, per namespace.
            Set<Grant> cluster = rules(user, "default", "cluster");
            Set<Grant> own = rules(user, ManifestsTest.NAMESPACE, "namespace");
            own.removeIf(g -> cluster.contains(new Grant("cluster", g.group(), g.resource(), g.verb(), g.resourceName())));
            Set<Grant> held = new TreeSet<>(cluster);
            held.addAll(own);
            assertEquals(listed.stream().map(Grant::toString).toList(), held.stream().map(Grant::toString).toList(),
                    sa + ": rights on the API server versus " + ApiCalls.file(sa));
        }
    }

    /**
     * exposure-service with nothing but its own ServiceAccount's token (a TokenRequest, as the kubelet
     * would mount it) checks for the DNSEndpoint CRD, takes its Lease, watches DNSEndpoints and
     * publishes one into a real BIND9 over TSIG-signed UPDATEs.
     */
    @Test
    void exposureServicePublishesIntoBindWithItsOwnServiceAccountToken() throws Exception {
        applyOverlays();
        Path request = work.resolve("token-request.json");
        Files.writeString(request, "{\"apiVersion\":\"authentication.k8s.io/v1\",\"kind\":\"TokenRequest\",\"spec\":{\"expirationSeconds\":3600}}");
        String response = kubectl("create", "--raw", "/api/v1/namespaces/" + ManifestsTest.NAMESPACE
                + "/serviceaccounts/exposure-service/token", "-f", request.toString());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"token\":\"([^\"]+)\"").matcher(response);
        assertTrue(m.find(), response);
        String token = m.group(1);

        String secret = java.util.Base64.getEncoder().encodeToString(randomHex(32).getBytes(StandardCharsets.US_ASCII));
        // A real BIND9 with one primary zone that accepts UPDATEs signed with the key exposure-service is given.
        try (BindServer bind = new BindServer(work.resolve("bind")).zone("mesh.test", """
                $TTL 60
                @ IN SOA ns.mesh.test. hostmaster.mesh.test. 1 60 60 600 60
                @ IN NS ns.mesh.test.
                ns IN A 127.0.0.1
                """).tsigKey("exposure", "hmac-sha256", secret)) {
            bind.start();
            kubectl("create", "namespace", "shop");
            Path objects = work.resolve("objects.yaml");
            Files.writeString(objects, """
                    apiVersion: v1
                    kind: Service
                    metadata:
                      name: web
                      namespace: shop
                      annotations: {external-dns.alpha.kubernetes.io/internal-hostname: web.mesh.test}
                    spec:
                      ports: [{port: 80}]
                    ---
                    apiVersion: externaldns.k8s.io/v1alpha1
                    kind: DNSEndpoint
                    metadata: {name: api, namespace: shop}
                    spec:
                      endpoints:
                        - {dnsName: api.mesh.test, recordType: A, recordTTL: 60, targets: [192.0.2.7]}
                    """);
            kubectl("apply", "-f", objects.toString());

            try (io.meshdns.testsupport.QuarkusJarProcess exposure = io.meshdns.testsupport.QuarkusJarProcess.module("exposure-service")
                    .jvmOptions(io.meshdns.testsupport.QuarkusJarProcess.FAST_START_JVM)
                    .env("POD_NAMESPACE", ManifestsTest.NAMESPACE)
                    .properties(java.util.Map.ofEntries(
                            java.util.Map.entry("quarkus.http.port", "0"),
                            // fabric8's own settings (the quarkus.kubernetes-client.* ones are fixed at build time),
                            // as a pod's mounted token would give them.
                            java.util.Map.entry("kubernetes.master", "https://127.0.0.1:" + apiPort),
                            java.util.Map.entry("kubernetes.auth.token", token),
                            java.util.Map.entry("kubernetes.trust.certificates", "true"),
                            java.util.Map.entry("kubernetes.namespace", ManifestsTest.NAMESPACE),
                            java.util.Map.entry("quarkus.kubernetes-client.devservices.enabled", "false"),
                            java.util.Map.entry("meshdns.exposure.policy", "sync"),
                            java.util.Map.entry("meshdns.exposure.owner-id", "kube-it"),
                            java.util.Map.entry("meshdns.exposure.provider", "rfc2136"),
                            java.util.Map.entry("meshdns.exposure.rfc2136.host", "127.0.0.1"),
                            java.util.Map.entry("meshdns.exposure.rfc2136.port", String.valueOf(bind.port())),
                            java.util.Map.entry("meshdns.exposure.rfc2136.zones", "mesh.test"),
                            java.util.Map.entry("meshdns.exposure.rfc2136.tsig-key-name", "exposure"),
                            java.util.Map.entry("meshdns.exposure.rfc2136.tsig-secret", secret),
                            java.util.Map.entry("meshdns.exposure.rfc2136.tsig-algorithm", "hmac-sha256"),
                            java.util.Map.entry("meshdns.exposure.default-domain", "mesh.test"),
                            java.util.Map.entry("meshdns.exposure.domain-filters", "mesh.test"),
                            // The Service source watches discovery.k8s.io/v1 EndpointSlices, which 1.20 does not
                            // serve (1.21+): DNSEndpoints only here; ManifestsTest and the SubjectAccessReviews
                            // above cover the Service rules.
                            java.util.Map.entry("meshdns.exposure.sources", "crd"),
                            java.util.Map.entry("meshdns.exposure.interval", "2s"),
                            java.util.Map.entry("meshdns.exposure.debounce", "200ms"),
                            java.util.Map.entry("meshdns.exposure.leader-election.lease-namespace", ManifestsTest.NAMESPACE)))
                    .start()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                List<String> api = List.of();
                while (System.nanoTime() < deadline && api.isEmpty() && exposure.isAlive()) {
                    api = bind.dig("api.mesh.test.", "A");
                    Thread.sleep(500);
                }
                assertEquals(List.of("192.0.2.7"), api, "DNSEndpoint api.shop in BIND\n" + exposure.output());
                assertTrue(!exposure.output().toLowerCase(java.util.Locale.ROOT).contains("forbidden"), exposure.output());
                String lease = kubectl("get", "lease", "-n", ManifestsTest.NAMESPACE, "-o", "jsonpath={.items[*].spec.holderIdentity}");
                assertTrue(!lease.isBlank(), "exposure-service holds its Lease");
            }
        }
    }

    /** The reason for the CRD's annotation: without it this group is refused. */
    @Test
    void theDnsEndpointCrdNeedsItsApprovalAnnotation() throws Exception {
        CustomResourceDefinition crd = Manifests.find(Manifests.resources(Manifests.ROOT.resolve("base")),
                CustomResourceDefinition.class, "dnsendpoints.externaldns.k8s.io");
        crd.getMetadata().getAnnotations().remove("api-approved.kubernetes.io");
        crd.getMetadata().setName("dnsendpoints.externaldns.k8s.io");
        Path file = work.resolve("crd-unapproved.yaml");
        Files.writeString(file, Serialization.asYaml(crd));
        String out = kubectlQuietly("apply", "--dry-run=server", "-f", file.toString());
        assertTrue(out.contains("api-approved.kubernetes.io"), out);
    }

    /** The API server's decision on one SubjectAccessReview: "true" or "false". */
    private static String allowed(String user, Grant g) throws Exception {
        String sub = g.resource().contains("/") ? g.resource().substring(g.resource().indexOf('/') + 1) : "";
        String resource = sub.isEmpty() ? g.resource() : g.resource().substring(0, g.resource().indexOf('/'));
        String review = """
                apiVersion: authorization.k8s.io/v1
                kind: SubjectAccessReview
                spec:
                  user: "%s"
                  groups: ["system:serviceaccounts", "system:serviceaccounts:%s", "system:authenticated"]
                  resourceAttributes:
                    group: "%s"
                    resource: "%s"
                    subresource: "%s"
                    verb: "%s"
                    namespace: "%s"
                    name: "%s"
                """.formatted(user, ManifestsTest.NAMESPACE, g.group(), resource, sub, g.verb(),
                g.scope().equals("cluster") ? "default" : ManifestsTest.NAMESPACE, g.resourceName());
        Path file = Files.createTempFile(work, "review", ".yaml");
        Files.writeString(file, review);
        return kubectl("create", "-f", file.toString(), "-o", "jsonpath={.status.allowed}").strip();
    }

    /** RBAC rules as the server reports them for {@code user} in {@code namespace} (SelfSubjectRulesReview). */
    private static Set<Grant> rules(String user, String namespace, String scope) throws Exception {
        String table = kubectl("auth", "can-i", "--list", "--namespace=" + namespace, "--as=" + user);
        String[] lines = table.split("\n");
        assertTrue(lines[0].startsWith("Resources") && lines[0].contains("Verbs"), table);
        int urls = lines[0].indexOf("Non-Resource URLs");
        int names = lines[0].indexOf("Resource Names");
        int verbs = lines[0].indexOf("Verbs");
        Set<Grant> out = new TreeSet<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank() || !line.substring(urls, names).strip().equals("[]")) continue;
            String res = line.substring(0, urls).strip();
            // Every authenticated user may review its own access (system:basic-user).
            if (res.startsWith("selfsubject")) continue;
            String sub = res.contains("/") ? res.substring(res.indexOf('/')) : "";
            String base = sub.isEmpty() ? res : res.substring(0, res.indexOf('/'));
            String resource = (base.contains(".") ? base.substring(0, base.indexOf('.')) : base) + sub;
            String group = base.contains(".") ? base.substring(base.indexOf('.') + 1) : "";
            String nameList = strip(line.substring(names, verbs));
            for (String verb : strip(line.substring(verbs)).split(" ")) {
                for (String name : nameList.isEmpty() ? new String[] {""} : nameList.split(" ")) {
                    out.add(new Grant(scope, group, resource, verb, name));
                }
            }
        }
        return out;
    }

    private static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private static String strip(String bracketed) {
        String s = bracketed.strip();
        return s.startsWith("[") ? s.substring(1, s.length() - 1).strip() : s;
    }

    /** k8s/ copied with freshly generated secret files, as an operator would prepare it. */
    private static Path copyWithSecrets() throws IOException {
        Path copy = work.resolve("k8s");
        try (Stream<Path> files = Files.walk(Manifests.ROOT)) {
            for (Path f : files.toList()) {
                Path to = copy.resolve(Manifests.ROOT.relativize(f).toString());
                if (Files.isDirectory(f)) Files.createDirectories(to); else Files.copy(f, to);
            }
        }
        SecureRandom random = new SecureRandom();
        byte[] token = new byte[32];
        random.nextBytes(token);
        Files.writeString(copy.resolve("secrets/discovery-token"), HexFormat.of().formatHex(token));
        byte[] tsig = new byte[32];
        random.nextBytes(tsig);
        Files.writeString(copy.resolve("secrets/exposure-tsig-secret"), java.util.Base64.getEncoder().encodeToString(tsig));
        return copy;
    }

    /** The rendered objects with the three fields Kubernetes 1.20 predates adapted (see the class comment). */
    private static String forThisServer(List<HasMetadata> objects) {
        StringBuilder out = new StringBuilder();
        for (HasMetadata o : objects) {
            if (o instanceof PodDisruptionBudget) {
                o.setApiVersion("policy/v1beta1");
            } else if (o instanceof DaemonSet ds) {
                var rolling = ds.getSpec().getUpdateStrategy().getRollingUpdate();
                rolling.setMaxSurge(null);
                rolling.setMaxUnavailable(new IntOrString(1));
            } else if (o instanceof Service s) {
                s.getSpec().setInternalTrafficPolicy(null);
            }
            String yaml = Serialization.asYaml(o);
            out.append(yaml.startsWith("---") ? yaml : "---\n" + yaml).append('\n');
        }
        return out.toString();
    }

    private static String kubectl(String... args) throws Exception {
        return run(Duration.ofMinutes(2), kubectlCommand(args));
    }

    /** kubectl's output whatever its exit code (can-i exits 1 on "no"). */
    private static String kubectlQuietly(String... args) throws Exception {
        Process p = new ProcessBuilder(kubectlCommand(args)).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(2, TimeUnit.MINUTES);
        return text;
    }

    private static String[] kubectlCommand(String... args) {
        List<String> cmd = new ArrayList<>(List.of(kubectl.toString(), "--server=https://127.0.0.1:" + apiPort,
                "--token=" + ADMIN_TOKEN, "--insecure-skip-tls-verify=true"));
        if (args.length > 0 && args[0].equals("kustomize")) cmd = new ArrayList<>(List.of(kubectl.toString()));
        cmd.addAll(List.of(args));
        return cmd.toArray(String[]::new);
    }

    private static String run(Duration timeout, String... command) throws Exception {
        return Commands.run(timeout, command);
    }
}
