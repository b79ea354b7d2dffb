package io.meshdns.discovery.manifest;

import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.discovery.rejection.RejectionReporter;
import io.meshdns.discovery.metrics.DiscoveryMetrics;
import io.meshdns.model.Catalog;
import io.meshdns.model.CatalogDelta;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ClusterStatus;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The file source on a copy of the bundled two-cluster example (examples/clusters). */
class ManifestSourceTest {
    private static final Path EXAMPLE = Path.of("..", "examples", "clusters");

    @TempDir
    Path dir;
    private CatalogAggregator catalog;
    private ManifestSource source;

    @BeforeEach
    void copyExample() throws IOException {
        try (Stream<Path> files = Files.walk(EXAMPLE)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path target = dir.resolve(EXAMPLE.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target);
            }
        }
        catalog = new CatalogAggregator(1000, 50, 100, null);
        catalog.expectInitialSync(ManifestSource.SOURCE_ID);
        source = new ManifestSource(List.of(dir), "local", "east", catalog,
                new DiscoveryMetrics(new SimpleMeterRegistry(), catalog), new RejectionReporter(false, Runnable::run), c -> false);
    }

    @Test
    void loadsBothClustersOfTheBundledExample() {
        assertTrue(source.poll());
        assertTrue(catalog.isReady(), "the first load completes the source's initial sync");
        assertNotNull(catalog.flush());
        Catalog c = catalog.current();
        assertEquals(List.of("10.96.0.10"), service(c, "east", "web").clusterIps());
        assertEquals(List.of("10.97.0.10"), service(c, "west", "web").clusterIps());
        assertEquals(List.of("10.97.0.20"), service(c, "west", "reviews").clusterIps());
        assertNull(c.get(new ObjectRef("east", Kind.SERVICE, "shop", "reviews")), "reviews lives only in west");
        assertTrue(service(c, "east", "db").headless());
        CatalogEntry.EndpointSlice slice = (CatalogEntry.EndpointSlice) c.get(new ObjectRef("east", Kind.ENDPOINT_SLICE, "shop", "db-7xk2p"));
        assertEquals(List.of("db-0", "db-1"), slice.endpoints().stream().map(e -> e.hostname()).toList());
        CatalogEntry.ServiceEntry payments = (CatalogEntry.ServiceEntry) c.get(new ObjectRef("east", Kind.SERVICE_ENTRY, "istio-system", "payments-api"));
        assertEquals(List.of("192.0.2.10"), payments.addresses());
        CatalogEntry.ServiceEntry legacy = (CatalogEntry.ServiceEntry) c.get(new ObjectRef("west", Kind.SERVICE_ENTRY, "shop", "legacy"));
        assertEquals(List.of("legacy.service.entry"), legacy.hosts());
        assertEquals(List.of("east", "west"), c.clusters().stream().map(ClusterStatus::name).toList());
        assertTrue(c.clusters().get(0).local(), "east is the configured local cluster name");
        assertFalse(source.poll(), "nothing changed: no reload");
    }

    @Test
    void anEditedFileIsParsedAloneTheOthersAreNotReadAgain() throws IOException {
        assertTrue(source.poll());
        catalog.flush();
        // west/all.yaml turned to garbage of the same size and mtime: were it parsed again, it would be rejected.
        Path west = dir.resolve("west/all.yaml");
        FileTime stamp = Files.getLastModifiedTime(west);
        Files.writeString(west, "{".repeat((int) Files.size(west)));
        Files.setLastModifiedTime(west, stamp);
        Path east = dir.resolve("east/services.yaml");
        Files.writeString(east, Files.readString(east).replace("10.96.0.10", "10.96.0.11"));
        Files.setLastModifiedTime(east, FileTime.fromMillis(Files.getLastModifiedTime(east).toMillis() + 2000));
        assertTrue(source.poll());
        assertTrue(source.rejectedFiles().isEmpty(), "the unchanged file was not parsed again: " + source.rejectedFiles());
        catalog.flush();
        assertEquals(List.of("10.96.0.11"), service(catalog.current(), "east", "web").clusterIps());
        assertEquals(List.of("10.97.0.20"), service(catalog.current(), "west", "reviews").clusterIps());
    }

    @Test
    void followsEditsDeletesAnnotationsAndKeepsTheLastGoodStateOfABrokenFile() throws IOException {
        source.poll();
        catalog.flush();

        Path west = dir.resolve("west/all.yaml");
        rewrite(west, Files.readString(west).replace("10.97.0.20", "10.97.0.21"));
        Files.writeString(dir.resolve("top.yaml"), """
                apiVersion: v1
                kind: Service
                metadata:
                  name: north-svc
                  namespace: default
                  annotations: {meshdns.io/cluster: north}
                spec: {clusterIP: 10.98.0.1}
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: unannotated}
                spec: {clusterIP: 10.99.0.1}
                """);
        Files.delete(dir.resolve("east/serviceentry.yaml"));
        assertTrue(source.poll());
        CatalogDelta d = catalog.flush();
        Catalog c = catalog.current();
        assertEquals(List.of("10.97.0.21"), service(c, "west", "reviews").clusterIps());
        assertNotNull(c.get(new ObjectRef("north", Kind.SERVICE, "default", "north-svc")), "annotation names the cluster");
        assertNotNull(c.get(new ObjectRef("local", Kind.SERVICE, "default", "unannotated")), "top-level file: the default cluster");
        assertEquals(List.of(new ObjectRef("east", Kind.SERVICE_ENTRY, "istio-system", "payments-api")), d.deletes());

        // A file that no longer parses keeps its previous objects; a malformed object keeps its last good entry.
        rewrite(west, "apiVersion: v1\nkind: Service\nmetadata: {name: [unclosed\n");
        Files.writeString(dir.resolve("east/bad-se.yaml"), """
                apiVersion: networking.istio.io/v1
                kind: ServiceEntry
                metadata: {name: bad, namespace: shop}
                spec: {hosts: [ok.example], addresses: [not-an-ip]}
                """);
        assertTrue(source.poll());
        catalog.flush();
        c = catalog.current();
        assertEquals(List.of("10.97.0.21"), service(c, "west", "reviews").clusterIps());
        assertNull(c.get(new ObjectRef("east", Kind.SERVICE_ENTRY, "shop", "bad")));
        assertNotNull(c.get(new ObjectRef("east", Kind.SERVICE, "shop", "web")), "everything else is still served");
    }

    /** A 400 KB YAML nested 200,000 deep (it overflowed the parser's stack and stopped polling for good). */
    static String deeplyNested() {
        return "apiVersion: v1\nkind: Service\nmetadata: {name: deep, namespace: shop}\nspec:\n  ports: "
                + "[".repeat(200_000) + "]".repeat(200_000) + "\n";
    }

    @Test
    void aDeeplyNestedFileIsRejectedAndEveryOtherFileKept() throws IOException {
        Files.writeString(dir.resolve("east/deep.yaml"), deeplyNested());
        assertTrue(source.poll());
        catalog.flush();
        assertTrue(catalog.isReady());
        Catalog c = catalog.current();
        assertEquals(List.of("10.96.0.10"), service(c, "east", "web").clusterIps());
        assertEquals(List.of("10.97.0.20"), service(c, "west", "reviews").clusterIps());
        assertEquals(List.of(dir.resolve("east/deep.yaml")), List.copyOf(source.rejectedFiles().keySet()));
        assertTrue(source.rejectedFiles().values().iterator().next().contains("nested deeper than"), source.rejectedFiles().toString());
        assertFalse(source.healthy(), "a file that never loaded: its records are missing, so not ready");

        // The poll loop is still alive: a later edit is picked up, and fixing the file clears the rejection.
        Path west = dir.resolve("west/all.yaml");
        rewrite(west, Files.readString(west).replace("10.97.0.20", "10.97.0.22"));
        Files.delete(dir.resolve("east/deep.yaml"));
        assertTrue(source.poll());
        catalog.flush();
        assertEquals(List.of("10.97.0.22"), service(catalog.current(), "west", "reviews").clusterIps());
        assertTrue(source.rejectedFiles().isEmpty());
        assertTrue(source.healthy());
    }

    @Test
    void aFileThatTurnsBadKeepsItsPreviousContent() throws IOException {
        source.poll();
        catalog.flush();
        Path west = dir.resolve("west/all.yaml");
        rewrite(west, deeplyNested());
        assertTrue(source.poll());
        catalog.flush();
        assertEquals(List.of("10.97.0.20"), service(catalog.current(), "west", "reviews").clusterIps(), "previous content kept");
        assertTrue(source.rejectedFiles().containsKey(west));
        assertTrue(source.healthy(), "everything the catalog had is still there");
    }

    @Test
    void anOversizeFileIsRejectedUnreadAndTheRestKept() throws IOException {
        source = new ManifestSource(List.of(dir), "local", "east", catalog,
                new DiscoveryMetrics(new SimpleMeterRegistry(), catalog), new RejectionReporter(false, Runnable::run), c -> false,
                new ManifestFile.Limits(64 * 1024, 64));
        StringBuilder big = new StringBuilder();
        for (int i = 0; big.length() < 100 * 1024; i++) {
            big.append("---\napiVersion: v1\nkind: Service\nmetadata: {name: s").append(i)
                    .append(", namespace: big}\nspec: {clusterIP: 10.100.0.1}\n");
        }
        Files.writeString(dir.resolve("east/big.yaml"), big);
        assertTrue(source.poll());
        catalog.flush();
        assertTrue(source.rejectedFiles().get(dir.resolve("east/big.yaml")).contains("meshdns.discovery.manifest.max-file-size"),
                source.rejectedFiles().toString());
        assertNull(catalog.current().get(new ObjectRef("east", Kind.SERVICE, "big", "s0")));
        assertEquals(List.of("10.96.0.10"), service(catalog.current(), "east", "web").clusterIps());
    }

    /** Found by ManifestFileFuzz: the item came back as a RawExtension and its cast failed the whole reload. */
    @Test
    void aListItemThatIsNotAKubernetesObjectRejectsItsFileAloneAndTheReloadGoesOn() throws IOException {
        source.poll();
        catalog.flush();
        Files.writeString(dir.resolve("east/list.json"), """
                {"apiVersion": "v1", "kind": "List", "items": [
                  {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "api", "namespace": "shop"}, "spec": {"clusterIP": "10.96.0.30"}},
                  {"apiVerison": "v1", "kind": "Service", "metadata": {"name": "typo", "namespace": "shop"}, "spec": {"clusterIP": "10.96.0.31"}}
                ]}
                """);
        Path west = dir.resolve("west/all.yaml");
        rewrite(west, Files.readString(west).replace("10.97.0.20", "10.97.0.22"));
        assertTrue(source.poll(), "the reload completes");
        catalog.flush();
        assertEquals(List.of("10.97.0.22"), service(catalog.current(), "west", "reviews").clusterIps(), "other files reloaded");
        String why = source.rejectedFiles().get(dir.resolve("east/list.json"));
        assertNotNull(why, source.rejectedFiles().toString());
        assertTrue(why.contains("items[1]"), why);
        assertNull(catalog.current().get(new ObjectRef("east", Kind.SERVICE, "shop", "api")), "nothing of a rejected file");
    }

    /**
     * No API server validates a manifest's names: a Service named with a dot, an upper-case letter or a leading
     * digit, or one in a namespace that is no DNS label, is refused on its own (a Problem logged for it, as the
     * API server would have refused it); the rest of its file is served.
     */
    @Test
    void objectsWhoseNamesTheApiServerWouldRefuseAreRejectedOneByOne() throws IOException {
        Files.writeString(dir.resolve("east/names.yaml"), """
                apiVersion: v1
                kind: Service
                metadata: {name: api, namespace: shop}
                spec: {clusterIP: 10.96.0.30}
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: web.shop, namespace: shop}
                spec: {clusterIP: 10.96.0.31}
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: Web_1, namespace: shop}
                spec: {clusterIP: 10.96.0.32}
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: 1st, namespace: shop}
                spec: {clusterIP: 10.96.0.33}
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: api, namespace: "svc.cluster"}
                spec: {clusterIP: 10.96.0.34}
                """);
        assertTrue(source.poll());
        catalog.flush();
        assertEquals(List.of("10.96.0.30"), service(catalog.current(), "east", "api").clusterIps());
        for (String bad : List.of("web.shop", "Web_1", "1st")) {
            assertNull(catalog.current().get(new ObjectRef("east", Kind.SERVICE, "shop", bad)), bad);
        }
        assertNull(catalog.current().get(new ObjectRef("east", Kind.SERVICE, "svc.cluster", "api")));
        assertFalse(source.rejectedFiles().containsKey(dir.resolve("east/names.yaml")), "the file itself is fine");
        assertEquals(List.of("10.96.0.10"), service(catalog.current(), "east", "web").clusterIps());
    }

    @Test
    void aFileOfAliasesThatStandsForMillionsOfNodesIsRejectedAndThePollGoesOn() throws IOException {
        Files.writeString(dir.resolve("east/laughs.yaml"), ManifestFileTest.aliasBomb(8));
        assertTrue(assertTimeoutPreemptively(Duration.ofSeconds(30), () -> source.poll()));
        catalog.flush();
        assertTrue(source.rejectedFiles().get(dir.resolve("east/laughs.yaml")).contains("aliases expand beyond"),
                source.rejectedFiles().toString());
        assertEquals(List.of("10.96.0.10"), service(catalog.current(), "east", "web").clusterIps());
    }

    private static void rewrite(Path p, String content) throws IOException {
        FileTime before = Files.getLastModifiedTime(p);
        Files.writeString(p, content);
        // Coarse file system clocks: make sure the change is visible by mtime even within one tick.
        if (Files.getLastModifiedTime(p).equals(before)) Files.setLastModifiedTime(p, FileTime.fromMillis(before.toMillis() + 1000));
    }

    private static CatalogEntry.Service service(Catalog c, String cluster, String name) {
        CatalogEntry e = c.get(new ObjectRef(cluster, Kind.SERVICE, "shop", name));
        assertNotNull(e, cluster + "/shop/" + name);
        return (CatalogEntry.Service) e;
    }
}
