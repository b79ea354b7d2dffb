package io.meshdns.it.k8s;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.meshdns.it.k8s.ApiCalls.Grant;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hand-written manifests in k8s/ (no generator checks them): every document parses into the
 * Kubernetes kind it claims; each ServiceAccount holds exactly the API calls its service lists
 * beside its code; every workload starts under the restrictions the namespace and the images assume.
 * {@code KubeApiServerTest} (profile -Pkube-apiserver) checks the same against a real API server.
 *
 * <p>Over 400 lines because it holds every rule the manifests must keep, one test each, over the same parsed base:
 * split, the rules of one workload would sit in several files.
 */
class ManifestsTest {
    static final String NAMESPACE = "meshdns-system";
    /** ServiceAccount name = module directory, for every service the manifests deploy. */
    static final List<String> SERVICES = List.of("discovery-service", "exposure-service", "dns-service");
    private static final Path BASE = Manifests.ROOT.resolve("base");

    @Test
    void everyManifestParsesIntoItsKubernetesKind() throws IOException {
        List<HasMetadata> objects = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Manifests.ROOT)) {
            // k8s/monitoring holds Prometheus Operator kinds (no fabric8 model): MonitoringQueriesTest checks those;
            // the cert-manager component's kinds have none either (theCertManagerComponentIssuesTheMountedSecret).
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml") && !p.endsWith("kustomization.yaml")
                    && !Manifests.ROOT.relativize(p).startsWith("monitoring")
                    && !Manifests.ROOT.relativize(p).startsWith("components/cert-manager")).sorted().toList()) {
                objects.addAll(Manifests.objects(f));
            }
        }
        assertTrue(objects.size() >= 20, "documents found: " + objects.size());
        for (HasMetadata o : objects) {
            assertNotNull(o.getMetadata().getName(), o.getKind() + " without a name");
            // k8s/monitoring's Prometheus-operator kinds have no typed model in fabric8.
            if (o.getApiVersion().startsWith("monitoring.coreos.com/")) continue;
            // A typo in apiVersion or kind leaves a generic resource instead of the typed model.
            assertFalse(o instanceof GenericKubernetesResource, "unknown kind " + o.getApiVersion() + "/" + o.getKind()
                    + " " + o.getMetadata().getName());
        }
    }

    @Test
    void everyServiceAccountHoldsExactlyTheApiCallsItsServiceLists() {
        List<HasMetadata> objects = Manifests.resources(BASE);
        for (String sa : SERVICES) {
            Manifests.find(objects, ServiceAccount.class, sa);
            assertEquals(ApiCalls.listed(sa).stream().map(Grant::toString).toList(),
                    ApiCalls.granted(objects, NAMESPACE, sa).stream().map(Grant::toString).toList(),
                    sa + ": RBAC in k8s/base versus " + ApiCalls.file(sa));
        }
        // Overlays add no RBAC of their own: the base's is the rendered one.
        for (String overlay : List.of("node-local", "node-local-kube-dns", "cluster-ip", "coredns")) {
            for (HasMetadata o : overlayObjects(overlay)) {
                assertFalse(o.getApiVersion().startsWith("rbac.authorization.k8s.io"), overlay + " adds " + o.getKind());
            }
        }
    }

    /** The comparison above must fail both ways: a rule taken away, and one nobody calls. */
    @Test
    void theRbacCheckCatchesARemovedAndAnUnusedRule() {
        List<HasMetadata> objects = Manifests.resources(BASE);
        ClusterRole exposure = Manifests.find(objects, ClusterRole.class, "meshdns-exposure");
        Set<Grant> listed = ApiCalls.listed("exposure-service");
        assertEquals(listed, ApiCalls.granted(objects, NAMESPACE, "exposure-service"));

        var rules = exposure.getRules();
        var crdRule = rules.stream().filter(r -> r.getResources().contains("customresourcedefinitions")).findFirst().orElseThrow();
        rules.remove(crdRule);
        Set<Grant> missing = new TreeSet<>(listed);
        missing.removeAll(ApiCalls.granted(objects, NAMESPACE, "exposure-service"));
        assertEquals("[cluster apiextensions.k8s.io customresourcedefinitions get dnsendpoints.externaldns.k8s.io]", missing.toString());

        rules.add(crdRule);
        rules.add(new PolicyRuleBuilder().withApiGroups("").withResources("pods").withVerbs("list").build());
        Set<Grant> extra = new TreeSet<>(ApiCalls.granted(objects, NAMESPACE, "exposure-service"));
        extra.removeAll(listed);
        assertEquals("[cluster core pods list]", extra.toString());
    }

    @Test
    void dnsServiceHasNoTokenAndNoRole() {
        List<HasMetadata> objects = Manifests.resources(BASE);
        assertTrue(ApiCalls.listed("dns-service").isEmpty());
        assertEquals(Boolean.FALSE, Manifests.find(objects, ServiceAccount.class, "dns-service").getAutomountServiceAccountToken());
        assertEquals(Boolean.FALSE, dnsDaemonSet(objects).getSpec().getTemplate().getSpec().getAutomountServiceAccountToken());
    }

    @Test
    void everyWorkloadRunsAsNobodyOnAReadOnlyRootWithATmpVolume() {
        List<HasMetadata> objects = Manifests.resources(BASE);
        Map<String, PodTemplateSpec> workloads = workloads(objects);
        assertEquals(Set.of("discovery-service", "exposure-service", "dns-service"), workloads.keySet());
        workloads.forEach((name, template) -> {
            PodSpec pod = template.getSpec();
            assertEquals(Boolean.TRUE, pod.getSecurityContext().getRunAsNonRoot(), name);
            assertEquals(65534L, pod.getSecurityContext().getRunAsUser(), name);
            assertEquals("RuntimeDefault", pod.getSecurityContext().getSeccompProfile().getType(), name);
            assertNotNull(pod.getPriorityClassName(), name + ": priorityClassName");
            for (Container c : pod.getContainers()) {
                var sc = c.getSecurityContext();
                assertEquals(Boolean.TRUE, sc.getReadOnlyRootFilesystem(), name);
                assertEquals(Boolean.FALSE, sc.getAllowPrivilegeEscalation(), name);
                assertEquals(List.of("ALL"), sc.getCapabilities().getDrop(), name);
                // Only port 53 needs a capability; NET_ADMIN belongs to the node-local overlay alone.
                List<String> add = sc.getCapabilities().getAdd() == null ? List.of() : sc.getCapabilities().getAdd();
                assertEquals(name.equals("dns-service") ? List.of("NET_BIND_SERVICE") : List.of(), add, name);

                // Vert.x writes its file cache to /tmp at start: without a volume there it crashes.
                VolumeMount tmp = c.getVolumeMounts().stream().filter(m -> m.getMountPath().equals("/tmp")).findFirst()
                        .orElseThrow(() -> new AssertionError(name + ": no volume at /tmp"));
                Volume v = pod.getVolumes().stream().filter(x -> x.getName().equals(tmp.getName())).findFirst().orElseThrow();
                assertNotNull(v.getEmptyDir(), name + ": /tmp is an emptyDir");

                for (Probe p : new Probe[] {c.getStartupProbe(), c.getReadinessProbe(), c.getLivenessProbe()}) {
                    assertNotNull(p, name + ": startup, readiness and liveness probes");
                    assertTrue(p.getHttpGet().getPath().startsWith("/q/health/"), name + " " + p.getHttpGet().getPath());
                }
                assertEquals("/q/health/ready", c.getReadinessProbe().getHttpGet().getPath(), name);

                // Loopback is the services' own default: in a pod, the pod's address.
                EnvVar host = envVar(c, "QUARKUS_HTTP_HOST");
                assertNotNull(host, name + ": QUARKUS_HTTP_HOST");
                assertEquals("status.podIP", host.getValueFrom().getFieldRef().getFieldPath(), name);
            }
        });
    }

    /** Without a quarkus.http.host of its own a service listens on every address; loopback is the safe default. */
    @Test
    void servicesListenOnLoopbackOutsideTheManifests() throws IOException {
        for (String module : List.of("dns-service", "discovery-service", "exposure-service", "edge")) {
            Path props = Manifests.ROOT.getParent().resolve(module).resolve("src/main/resources/application.properties");
            assertTrue(Files.readAllLines(props).contains("quarkus.http.host=127.0.0.1"), props.toString());
        }
    }

    @Test
    void everyDeploymentHasADisruptionBudgetThatLetsADrainProceed() {
        List<HasMetadata> objects = Manifests.resources(BASE);
        List<PodDisruptionBudget> pdbs = Manifests.all(objects, PodDisruptionBudget.class);
        for (Deployment d : Manifests.all(objects, Deployment.class)) {
            Map<String, String> labels = d.getSpec().getTemplate().getMetadata().getLabels();
            PodDisruptionBudget pdb = pdbs.stream()
                    .filter(p -> labels.entrySet().containsAll(p.getSpec().getSelector().getMatchLabels().entrySet()))
                    .findFirst().orElseThrow(() -> new AssertionError("no PodDisruptionBudget for " + d.getMetadata().getName()));
            int min = pdb.getSpec().getMinAvailable().getIntVal();
            assertTrue(min >= 1 && min < d.getSpec().getReplicas(), d.getMetadata().getName() + ": minAvailable " + min);
        }
    }

    /** A JVM that ran out of memory is half alive (a thread gone, a wait that never ends): every workload exits instead. */
    @Test
    void everyWorkloadExitsOnOutOfMemory() {
        List<HasMetadata> objects = Manifests.resources(BASE);
        List<PodSpec> pods = new java.util.ArrayList<>();
        Manifests.all(objects, Deployment.class).forEach(d -> pods.add(d.getSpec().getTemplate().getSpec()));
        Manifests.all(objects, DaemonSet.class).forEach(d -> pods.add(d.getSpec().getTemplate().getSpec()));
        assertTrue(pods.size() >= 3, "workloads: " + pods.size());
        for (PodSpec pod : pods) {
            for (Container c : pod.getContainers()) {
                String jvm = env(c, "JAVA_TOOL_OPTIONS");
                assertTrue(jvm != null && jvm.contains("-XX:+ExitOnOutOfMemoryError"), c.getName() + ": JAVA_TOOL_OPTIONS " + jvm);
            }
        }
    }

    @Test
    void theDnsDaemonSetSurgesOnUpgradeAndServes53WithAHeapThatFitsItsLimit() {
        List<HasMetadata> objects = Manifests.resources(BASE);
        DaemonSet ds = dnsDaemonSet(objects);
        PodSpec pod = ds.getSpec().getTemplate().getSpec();
        assertTrue(pod.getHostNetwork(), "node-local: host network");
        assertEquals("system-node-critical", pod.getPriorityClassName());
        var rolling = ds.getSpec().getUpdateStrategy().getRollingUpdate();
        assertEquals(1, rolling.getMaxSurge().getIntVal());
        assertEquals(0, rolling.getMaxUnavailable().getIntVal());
        Map<String, String> config = Manifests.find(objects, ConfigMap.class, "dns-service").getData();
        assertEquals("true", config.get("MESHDNS_DNS_REUSE_PORT"), "the surge pod binds port 53 beside the old one");
        assertEquals("53", config.get("MESHDNS_DNS_PORT"));
        Container c = pod.getContainers().get(0);
        // On the host network a containerPort is a hostPort: the surge pod would never be scheduled.
        assertTrue(c.getPorts() == null || c.getPorts().isEmpty(), "ports on a surging host-network DaemonSet: " + c.getPorts());

        long limit = Quantity.getAmountInBytes(c.getResources().getLimits().get("memory")).longValue();
        String jvm = env(c, "JAVA_TOOL_OPTIONS");
        assertNotNull(jvm, "no JAVA_TOOL_OPTIONS: the JVM would take 25% of the limit");
        Matcher m = Pattern.compile("-XX:MaxRAMPercentage=([0-9.]+)").matcher(jvm);
        assertTrue(m.find(), jvm);
        double heapMb = limit * Double.parseDouble(m.group(1)) / 100 / (1 << 20);
        // bench/memory: ~42 MB live heap at 100k records with the memo full, ~75 MB of RSS outside the heap.
        assertTrue(heapMb >= 72, "max heap " + heapMb + " MB");
        assertTrue(limit / (1 << 20) - heapMb >= 96, "room outside the heap: " + (limit / (1 << 20) - heapMb) + " MB");
        assertEquals("2", env(c, "MALLOC_ARENA_MAX"));
    }

    /**
     * On the host network with dnsPolicy Default, a Service name resolves through the node's
     * resolv.conf and fails: dns-service finds discovery-service through the kubelet's Service
     * environment variables, named after the Service.
     */
    @Test
    void dnsServiceReachesDiscoveryWithoutClusterDns() {
        List<HasMetadata> objects = Manifests.resources(BASE);
        PodSpec pod = dnsDaemonSet(objects).getSpec().getTemplate().getSpec();
        assertEquals("Default", pod.getDnsPolicy());
        Service discovery = Manifests.find(objects, Service.class, "discovery-service");
        String prefix = discovery.getMetadata().getName().toUpperCase().replace('-', '_') + "_SERVICE_";
        assertEquals("https://$(" + prefix + "HOST):$(" + prefix + "PORT)", env(pod.getContainers().get(0), "MESHDNS_DNS_DISCOVERY_URL"));
        // The URL has the ClusterIP: the certificate is verified against the Service's name.
        assertEquals(discovery.getMetadata().getName() + "." + NAMESPACE + ".svc",
                env(pod.getContainers().get(0), "MESHDNS_DNS_DISCOVERY_TLS_SERVER_NAME"));
        assertEquals(NAMESPACE, discovery.getMetadata().getNamespace(), "Service variables reach pods of the same namespace only");
        assertTrue(pod.getEnableServiceLinks() == null || pod.getEnableServiceLinks());
    }

    @Test
    void allowedClientsCoverEveryPrivatePodNetwork() throws Exception {
        String clients = Manifests.find(Manifests.resources(BASE), ConfigMap.class, "dns-service").getData().get("MESHDNS_DNS_ALLOWED_CLIENTS");
        for (String pod : List.of("10.244.1.5", "172.20.0.9", "192.168.3.4", "100.64.0.7", "fd00:10:244::5", "127.0.0.1")) {
            assertTrue(covered(clients, InetAddress.getByName(pod)), pod + " not in " + clients);
        }
        assertFalse(covered(clients, InetAddress.getByName("8.8.8.8")), "open resolver: " + clients);
    }

    @Test
    void secretsAreGeneratedNeverCommitted() throws IOException {
        List<HasMetadata> all = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Manifests.ROOT)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".yaml") && !p.endsWith("kustomization.yaml")).toList()) {
                all.addAll(Manifests.objects(f));
            }
        }
        assertTrue(Manifests.all(all, Secret.class).isEmpty(), "a Secret with a known value in k8s/");
        Set<String> generated = new HashSet<>();
        Manifests.kustomization(Manifests.ROOT.resolve("secrets")).path("secretGenerator").forEach(g -> generated.add(g.path("name").asText()));
        Set<String> referenced = new TreeSet<>();
        workloads(Manifests.resources(BASE)).values().forEach(t -> t.getSpec().getContainers().forEach(c -> c.getEnv().stream()
                .filter(e -> e.getValueFrom() != null && e.getValueFrom().getSecretKeyRef() != null)
                .forEach(e -> referenced.add(e.getValueFrom().getSecretKeyRef().getName()))));
        // Required Secret volumes (discovery's certificate) too; optional ones (remote clusters) are the operator's.
        workloads(Manifests.resources(BASE)).values().forEach(t -> t.getSpec().getVolumes().stream()
                .filter(v -> v.getSecret() != null && !Boolean.TRUE.equals(v.getSecret().getOptional()))
                .forEach(v -> referenced.add(v.getSecret().getSecretName())));
        assertEquals(referenced, new TreeSet<>(generated));
        String gitignore = Files.readString(Manifests.ROOT.getParent().resolve(".gitignore"));
        assertTrue(gitignore.contains("/k8s/secrets/*"), "secret files ignored by git");
        for (String overlay : List.of("node-local", "node-local-kube-dns", "cluster-ip")) {
            List<String> res = new ArrayList<>();
            Manifests.kustomization(Manifests.ROOT.resolve("overlays").resolve(overlay)).path("bases").forEach(r -> res.add(r.asText()));
            assertTrue(res.contains("../../secrets"), overlay + " generates the Secrets");
        }
    }

    /**
     * discovery serves HTTPS only, probed over HTTPS, from the Secret dns-service takes its CA from; the
     * cert-manager component issues that Secret for the name dns-service verifies.
     */
    @Test
    void discoveryServesHttpsOnlyFromTheSecretTheCertManagerComponentIssues() {
        List<HasMetadata> objects = Manifests.resources(BASE);
        PodSpec discovery = workloads(objects).get("discovery-service").getSpec();
        Container c = discovery.getContainers().get(0);
        assertEquals("disabled", env(c, "QUARKUS_HTTP_INSECURE_REQUESTS"));
        assertEquals("HTTPS", c.getReadinessProbe().getHttpGet().getScheme());
        assertEquals("HTTPS", c.getLivenessProbe().getHttpGet().getScheme());
        assertEquals("HTTPS", c.getStartupProbe().getHttpGet().getScheme());
        String secret = discovery.getVolumes().stream().filter(v -> v.getSecret() != null && "tls".equals(v.getName()))
                .findFirst().orElseThrow().getSecret().getSecretName();
        PodSpec dns = dnsDaemonSet(objects).getSpec().getTemplate().getSpec();
        assertTrue(dns.getVolumes().stream().anyMatch(v -> v.getSecret() != null && secret.equals(v.getSecret().getSecretName())
                && v.getSecret().getItems().stream().allMatch(i -> i.getKey().equals("ca.crt"))), "dns-service mounts the CA only");
        String serverName = env(dns.getContainers().get(0), "MESHDNS_DNS_DISCOVERY_TLS_SERVER_NAME");
        List<HasMetadata> certs = Manifests.objects(Manifests.ROOT.resolve("components/cert-manager/certificates.yaml"));
        GenericKubernetesResource serving = certs.stream().filter(o -> o.getKind().equals("Certificate") && o instanceof GenericKubernetesResource g
                && secret.equals(String.valueOf(((Map<?, ?>) g.getAdditionalProperties().get("spec")).get("secretName"))))
                .map(GenericKubernetesResource.class::cast).findFirst().orElseThrow();
        assertTrue(((List<?>) ((Map<?, ?>) serving.getAdditionalProperties().get("spec")).get("dnsNames")).contains(serverName));
        assertEquals(NAMESPACE, serving.getMetadata().getNamespace());
    }

    @Test
    void theNativeComponentSwitchesEveryWorkloadToItsNativeImageWithoutJvmFlags() throws IOException {
        Path dir = Manifests.ROOT.resolve("components/native");
        com.fasterxml.jackson.databind.JsonNode k = Manifests.kustomization(dir);
        assertEquals("Component", k.path("kind").asText());
        Map<String, String> newTags = new LinkedHashMap<>();
        k.path("images").forEach(i -> newTags.put(i.path("name").asText(), i.path("newTag").asText()));
        Map<String, com.fasterxml.jackson.databind.JsonNode> patched = new LinkedHashMap<>();
        com.fasterxml.jackson.databind.ObjectMapper yaml =
                new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
        for (com.fasterxml.jackson.databind.JsonNode p : k.path("patches")) {
            try (var parser = yaml.getFactory().createParser(dir.resolve(p.path("path").asText()).toFile())) {
                yaml.readValues(parser, com.fasterxml.jackson.databind.JsonNode.class).readAll()
                        .forEach(doc -> patched.put(doc.path("kind").asText() + "/" + doc.path("metadata").path("name").asText(), doc));
            }
        }
        Map<String, PodTemplateSpec> workloads = workloads(Manifests.resources(BASE));
        assertFalse(workloads.isEmpty());
        List<HasMetadata> base = Manifests.resources(BASE);
        for (var w : workloads.entrySet()) {
            String kind = Manifests.all(base, DaemonSet.class).stream().anyMatch(d -> d.getMetadata().getName().equals(w.getKey()))
                    ? "DaemonSet" : "Deployment";
            for (Container c : w.getValue().getSpec().getContainers()) {
                String image = c.getImage().substring(0, c.getImage().lastIndexOf(':'));
                String tag = c.getImage().substring(c.getImage().lastIndexOf(':') + 1);
                assertEquals(tag + "-native", newTags.get(image), image + ": the native tag of the base's version");
                com.fasterxml.jackson.databind.JsonNode patch = patched.get(kind + "/" + w.getKey());
                assertNotNull(patch, w.getKey() + " is patched");
                com.fasterxml.jackson.databind.JsonNode pc = null;
                for (com.fasterxml.jackson.databind.JsonNode n : patch.path("spec").path("template").path("spec").path("containers")) {
                    if (n.path("name").asText().equals(c.getName())) pc = n;
                }
                assertNotNull(pc, c.getName() + " container is patched");
                Set<String> deleted = new HashSet<>();
                pc.path("env").forEach(e -> {
                    if (e.path("$patch").asText().equals("delete")) deleted.add(e.path("name").asText());
                });
                if (envVar(c, "JAVA_TOOL_OPTIONS") != null) {
                    assertTrue(deleted.contains("JAVA_TOOL_OPTIONS"), c.getName() + ": the JVM flags are removed");
                }
                Quantity jvmLimit = c.getResources().getLimits().get("memory");
                Quantity nativeLimit = new Quantity(pc.path("resources").path("limits").path("memory").asText());
                Quantity nativeRequest = new Quantity(pc.path("resources").path("requests").path("memory").asText());
                assertTrue(nativeLimit.getNumericalAmount().compareTo(jvmLimit.getNumericalAmount()) < 0,
                        c.getName() + ": native limit " + nativeLimit + " below the JVM's " + jvmLimit);
                assertTrue(nativeRequest.getNumericalAmount().compareTo(nativeLimit.getNumericalAmount()) <= 0,
                        c.getName() + ": request within the limit");
            }
        }
        assertEquals(workloads.size(), patched.keySet().stream().filter(key -> !key.startsWith("ConfigMap/")).count(),
                "no patch for a workload the base does not have");
    }

    /**
     * The base with the native component, rendered by kubectl's kustomize: no setting the native executables refuse
     * or ignore. Natively Vert.x (and so Quarkus's HTTP server) is on the JDK transport, which ignores SO_REUSEPORT:
     * dns-service refuses {@code quarkus.http.so-reuse-port=true} there, and a surge pod on the host network could
     * not bind the old pod's HTTP port, so the native DaemonSet must not surge. The DNS sockets are dns-service's own
     * (epoll, natively too), so {@code MESHDNS_DNS_REUSE_PORT=true} is accepted.
     */
    @Test
    void theNativeOverlayRendersWithNoSettingTheNativeExecutablesRefuse() throws Exception {
        Path kubectl = java.util.stream.Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .map(d -> Path.of(d, "kubectl")).filter(Files::isExecutable).findFirst().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(kubectl != null, "kubectl (for its kustomize) is not on the PATH");
        // kustomize takes only relative paths to the base and the component: an overlay of the test's own under target/.
        Path overlay = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "native-overlay");
        Files.writeString(overlay.resolve("kustomization.yaml"), "apiVersion: kustomize.config.k8s.io/v1beta1\n"
                + "kind: Kustomization\nresources:\n  - " + overlay.toAbsolutePath().relativize(BASE.toAbsolutePath()) + "\n"
                + "components:\n  - " + overlay.toAbsolutePath().relativize(Manifests.ROOT.resolve("components/native").toAbsolutePath())
                + "\n");
        String rendered = io.meshdns.testsupport.Commands.run(java.time.Duration.ofMinutes(1), kubectl.toString(), "kustomize",
                overlay.toString());
        List<HasMetadata> objects = Manifests.parse(rendered);

        for (var w : workloads(objects).entrySet()) {
            for (Container c : w.getValue().getSpec().getContainers()) {
                assertTrue(c.getImage().endsWith("-native"), w.getKey() + ": native image, got " + c.getImage());
                assertNull(envVar(c, "JAVA_TOOL_OPTIONS"), w.getKey() + ": a native executable reads no JVM flags");
            }
        }
        DaemonSet dns = Manifests.find(objects, DaemonSet.class, "dns-service");
        Map<String, String> settings = new LinkedHashMap<>(Manifests.find(objects, ConfigMap.class, "dns-service").getData());
        for (Container c : dns.getSpec().getTemplate().getSpec().getContainers()) {
            c.getEnv().stream().filter(e -> e.getValue() != null).forEach(e -> settings.put(e.getName(), e.getValue()));
        }
        assertNotEquals("true", settings.get("QUARKUS_HTTP_SO_REUSE_PORT"),
                "refused natively: Vert.x's JDK transport ignores SO_REUSEPORT on the HTTP port");
        assertEquals("true", settings.get("MESHDNS_DNS_REUSE_PORT"), "the DNS sockets keep SO_REUSEPORT natively");
        assertTrue(dns.getSpec().getTemplate().getSpec().getHostNetwork(), "the premise: one HTTP port per node");
        String maxSurge = String.valueOf(dns.getSpec().getUpdateStrategy().getRollingUpdate().getMaxSurge().getValue());
        assertTrue(maxSurge.equals("0") || maxSurge.equals("0%"),
                "a surge pod could not bind the old pod's HTTP port natively: the rollout would hang; maxSurge " + maxSurge);
        String maxUnavailable = String.valueOf(dns.getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable().getValue());
        assertNotEquals("0", maxUnavailable, "with no surge, an old pod must be allowed to go first");
    }

    @Test
    void theCrdIsExternalDnsesWithItsApprovalAnnotation() {
        CustomResourceDefinition crd = Manifests.find(Manifests.resources(BASE), CustomResourceDefinition.class, "dnsendpoints.externaldns.k8s.io");
        // *.k8s.io groups are protected: without the annotation the API server rejects the CRD.
        assertTrue(crd.getMetadata().getAnnotations().getOrDefault("api-approved.kubernetes.io", "").startsWith("https://"));
        var v = crd.getSpec().getVersions().get(0);
        assertEquals("v1alpha1", v.getName());
        assertNotNull(v.getSubresources().getStatus());
        var endpoint = v.getSchema().getOpenAPIV3Schema().getProperties().get("spec").getProperties().get("endpoints").getItems().getSchema();
        assertEquals(Set.of("dnsName", "labels", "providerSpecific", "recordTTL", "recordType", "setIdentifier", "targets"),
                endpoint.getProperties().keySet());
    }

    @Test
    void netAdminOnlyInTheNodeLocalOverlayWhichBindsTheLinkLocalAddress() {
        List<HasMetadata> patch = Manifests.objects(Manifests.ROOT.resolve("overlays/node-local/dns-service-node-local.yaml"));
        Container c = ((DaemonSet) patch.get(0)).getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals(List.of("NET_BIND_SERVICE", "NET_ADMIN"), c.getSecurityContext().getCapabilities().getAdd());
        assertEquals("169.254.20.10", env(c, "MESHDNS_DNS_BIND_ADDRESS"));
        assertEquals("169.254.20.10", env(c, "MESHDNS_DNS_NODE_LOCAL_ADDRESS"));
        assertEquals("true", env(c, "MESHDNS_DNS_NODE_LOCAL_ENABLED"));
    }

    /**
     * NodeLocal DNSCache's kube-dns ClusterIP mode: the ClusterIP among the held addresses, forwarding to a
     * separate kube-dns-upstream Service that selects kube-dns and is not an address dns-service holds.
     */
    @Test
    void theKubeDnsOverlayHoldsTheClusterIpAndForwardsThroughKubeDnsUpstream() {
        Path dir = Manifests.ROOT.resolve("overlays/node-local-kube-dns");
        List<HasMetadata> patch = Manifests.objects(dir.resolve("dns-service-node-local-kube-dns.yaml"));
        Container c = ((DaemonSet) patch.get(0)).getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals(List.of("NET_BIND_SERVICE", "NET_ADMIN"), c.getSecurityContext().getCapabilities().getAdd());
        assertEquals("true", env(c, "MESHDNS_DNS_NODE_LOCAL_ENABLED"));
        List<String> held = List.of(env(c, "MESHDNS_DNS_NODE_LOCAL_ADDRESSES").split(","));
        assertEquals(List.of("169.254.20.10", "10.96.0.10"), held);
        assertEquals(held.get(0), env(c, "MESHDNS_DNS_BIND_ADDRESS"));
        Service upstream = Manifests.find(overlayObjects("node-local-kube-dns"), Service.class, "kube-dns-upstream");
        assertEquals("kube-system", upstream.getMetadata().getNamespace());
        assertEquals(Map.of("k8s-app", "kube-dns"), upstream.getSpec().getSelector());
        assertEquals(upstream.getSpec().getClusterIP() + ":53", env(c, "MESHDNS_DNS_UPSTREAMS"));
        assertFalse(held.contains(upstream.getSpec().getClusterIP()), "the upstream is not an address dns-service holds");
        assertEquals(Set.of("UDP", "TCP"), upstream.getSpec().getPorts().stream().map(p -> p.getProtocol()).collect(java.util.stream.Collectors.toSet()));
    }

    @Test
    void coreDnsForwardsTheMeshZonesToTheFixedClusterIp() {
        List<HasMetadata> objects = new ArrayList<>(Manifests.resources(Manifests.ROOT.resolve("overlays/cluster-ip")));
        objects.addAll(overlayObjects("coredns"));
        String clusterIp = Manifests.find(objects, Service.class, "dns-service").getSpec().getClusterIP();
        assertEquals("Local", Manifests.find(objects, Service.class, "dns-service").getSpec().getInternalTrafficPolicy());
        String corefile = Manifests.find(objects, ConfigMap.class, "coredns-custom").getData().get("meshdns.server");
        assertTrue(corefile.contains("fallthrough"), corefile);
        for (String zone : List.of("cluster.local:53", "service.entry:53")) {
            int at = corefile.indexOf(zone);
            assertTrue(at >= 0, zone);
            String block = corefile.substring(at, corefile.indexOf("\n}", at));
            assertTrue(block.contains("forward . " + clusterIp), zone + " forwards to " + clusterIp + ":\n" + block);
        }
    }

    /**
     * A JVM stops at start on an option it does not know (a typo, or one newer than the image's JDK:
     * TrimNativeHeapInterval needs 17.0.9): the DaemonSet's flags must start the JDK the tests run on.
     */
    @Test
    void theDaemonSetsJvmFlagsStartAJvm() throws Exception {
        String flags = env(dnsDaemonSet(Manifests.resources(BASE)).getSpec().getTemplate().getSpec().getContainers().get(0), "JAVA_TOOL_OPTIONS");
        assertNotNull(flags, "no JAVA_TOOL_OPTIONS");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(flags.trim().split("\\s+")));
        command.add("-version");
        Process java = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(java.getInputStream().readAllBytes());
        assertEquals(0, java.waitFor(), command + "\n" + output);
    }

    /**
     * The image itself exits on OutOfMemoryError (whatever runs it, not only these manifests): a
     * hostile webhook's huge body once killed exposure's HTTP client thread and left every pass waiting.
     */
    @Test
    void exposuresImageExitsOnOutOfMemory() throws IOException {
        String dockerfile = Files.readString(Manifests.ROOT.getParent().resolve("exposure-service/src/main/docker/Dockerfile.jvm"));
        assertTrue(dockerfile.lines().anyMatch(l -> l.startsWith("ENTRYPOINT") && l.contains("\"-XX:+ExitOnOutOfMemoryError\"")), dockerfile);
    }

    static Map<String, PodTemplateSpec> workloads(List<HasMetadata> objects) {
        Map<String, PodTemplateSpec> out = new LinkedHashMap<>();
        Manifests.all(objects, Deployment.class).forEach(d -> out.put(d.getMetadata().getName(), d.getSpec().getTemplate()));
        Manifests.all(objects, DaemonSet.class).forEach(d -> out.put(d.getMetadata().getName(), d.getSpec().getTemplate()));
        return out;
    }

    /** The objects an overlay adds as files of its own (its patches excluded). */
    private static List<HasMetadata> overlayObjects(String overlay) {
        Path dir = Manifests.ROOT.resolve("overlays").resolve(overlay);
        List<HasMetadata> out = new ArrayList<>();
        Manifests.kustomization(dir).path("resources").forEach(r -> {
            Path p = dir.resolve(r.asText()).normalize();
            if (Files.isRegularFile(p)) out.addAll(Manifests.objects(p));
        });
        return out;
    }

    private static boolean covered(String cidrs, InetAddress a) throws Exception {
        for (String cidr : cidrs.split(",")) {
            String[] p = cidr.trim().split("/");
            byte[] net = InetAddress.getByName(p[0]).getAddress();
            byte[] addr = a.getAddress();
            if (net.length != addr.length) continue;
            int bits = Integer.parseInt(p[1]);
            boolean match = true;
            for (int i = 0; i < bits && match; i++) {
                int mask = 0x80 >> (i % 8);
                match = (net[i / 8] & mask) == (addr[i / 8] & mask);
            }
            if (match) return true;
        }
        return false;
    }

    private static DaemonSet dnsDaemonSet(List<HasMetadata> objects) {
        return Manifests.find(objects, DaemonSet.class, "dns-service");
    }

    /** The container's environment variable {@code name}, or null. */
    private static EnvVar envVar(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst().orElse(null);
    }

    /** The value of the container's environment variable {@code name}, or null. */
    private static String env(Container c, String name) {
        EnvVar e = envVar(c, name);
        return e == null ? null : e.getValue();
    }
}
