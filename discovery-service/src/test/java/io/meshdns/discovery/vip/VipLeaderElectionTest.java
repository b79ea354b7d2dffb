package io.meshdns.discovery.vip;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.meshdns.discovery.catalog.CatalogAggregator;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;
import io.meshdns.testsupport.MockKubernetesCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two discovery replicas (allocator + catalog each, their own client) on the fabric8 CRUD server, seeing the same
 * ServiceEntries: one holds the Lease and writes, the other answers its VIPs; the leader dies without releasing
 * the Lease and the other takes over from the ConfigMap's table.
 */
class VipLeaderElectionTest {
    private static final String NS = "meshdns-system";
    private static final String LEASE = "discovery-service-vip-allocator";
    private static final Duration LEASE_DURATION = Duration.ofMillis(2000);
    private static final Duration RENEW_DEADLINE = Duration.ofMillis(1500);
    private static final Duration RETRY = Duration.ofMillis(500);

    private MockKubernetesCluster cluster;
    private final List<Replica> replicas = new ArrayList<>();

    /** One discovery process as far as VIPs go: the allocator, its catalog, its own connection. */
    private record Replica(KubernetesClient client, CentralVipAllocator allocator, CatalogAggregator catalog, ScheduledExecutorService scheduler) {
        void kill() {
            // No release: the client goes first, so the Lease stays held by a dead identity until it expires.
            client.close();
            allocator.close();
            scheduler.shutdownNow();
        }

        List<String> vips(String name, String host) {
            var e = (CatalogEntry.ServiceEntry) catalog.current().get(new ObjectRef("east", Kind.SERVICE_ENTRY, "default", name));
            return e == null ? List.of() : e.allocatedVips().getOrDefault(host, List.of());
        }
    }

    @BeforeEach
    void start() {
        cluster = new MockKubernetesCluster("east");
    }

    @AfterEach
    void stop() {
        for (Replica r : replicas) {
            r.allocator.close();
            r.client.close();
            r.scheduler.shutdownNow();
        }
        cluster.close();
    }

    static VipConfig config(Optional<Boolean> enabled, Duration lease, Duration renew, Duration retry) {
        return new VipConfig() {
            // A /29 has 6 usable addresses: hosts collide and probe, so a table lost or rebuilt in another
            // order would give other addresses; only following the stored table keeps them.
            public List<String> vipRanges() { return List.of("240.240.0.0/29"); }
            public String vipConfigmap() { return "meshdns-vips"; }
            public Duration vipReleaseDelay() { return Duration.ofMinutes(5); }
            public String vipSource() { return "own"; }
            public Optional<Path> vipFile() { return Optional.empty(); }
            public Optional<String> namespace() { return Optional.of(NS); }
            public LeaderElection leaderElection() {
                return new LeaderElection() {
                    public Optional<Boolean> enabled() { return enabled; }
                    public String leaseName() { return LEASE; }
                    public Duration leaseDuration() { return lease; }
                    public Duration renewDeadline() { return renew; }
                    public Duration retryPeriod() { return retry; }
                };
            }
        };
    }

    private Replica replica() {
        KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl(cluster.url())
                .withNamespace(NS).withTrustCerts(true).build()).build();
        CentralVipAllocator allocator = new CentralVipAllocator();
        allocator.config = config(Optional.empty(), LEASE_DURATION, RENEW_DEADLINE, RETRY);
        allocator.configure();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        CatalogAggregator catalog = new CatalogAggregator(1, 5, 1000, scheduler);
        catalog.setEnricher(new VipEnricher(allocator));
        catalog.addListener(allocator);
        allocator.onTableChanged(catalog::reapplyEnricher);
        catalog.markReady();
        allocator.start(new ConfigMapVipStore(client, NS, "meshdns-vips"), client, NS);
        Replica r = new Replica(client, allocator, catalog, scheduler);
        replicas.add(r);
        return r;
    }

    private static CatalogEntry.ServiceEntry entry(String name, String host) {
        return new CatalogEntry.ServiceEntry("east", "default", name, List.of(host), List.of(), "NONE", List.of(), List.of(),
                Map.of(), Map.of(), List.of(), false);
    }

    private Map<String, List<String>> stored() {
        var cm = cluster.client().configMaps().inNamespace(NS).withName("meshdns-vips").get();
        return cm == null ? Map.of() : VipStore.decode(cm.getData().get(ConfigMapVipStore.DATA_KEY));
    }

    private static void await(String what, Duration max, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("not within " + max + ": " + what);
            Thread.sleep(20);
        }
    }

    @Test
    void oneReplicaAllocatesTheOtherAnswersItsVipsAndTakesOverWhenTheLeaderDies() throws Exception {
        Replica first = replica();
        Replica second = replica();
        await("one leader", LEASE_DURATION.multipliedBy(2), () -> first.allocator.leading() || second.allocator.leading());
        Thread.sleep(RETRY.toMillis() * 2); // a second leader, if any, would show by now
        assertTrue(first.allocator.leading() ^ second.allocator.leading(), "exactly one replica leads");
        Replica leader = first.allocator.leading() ? first : second;
        Replica follower = leader == first ? second : first;
        Lease lease = cluster.client().leases().inNamespace(NS).withName(LEASE).get();
        assertEquals(leader.allocator.leaseIdentity().orElseThrow(), lease.getSpec().getHolderIdentity());

        // Both see the same ServiceEntries; the follower sees them first and must not allocate.
        List<String> hosts = List.of("a.example.com", "b.example.com", "c.example.com", "d.example.com");
        for (int i = 0; i < hosts.size(); i++) follower.catalog.upsert(entry("se" + i, hosts.get(i)));
        follower.catalog.flush();
        for (int i = 0; i < hosts.size(); i++) assertEquals(List.of(), follower.vips("se" + i, hosts.get(i)), "follower allocated " + hosts.get(i));
        // In reverse order on the leader: its probing order decides the addresses, not the follower's.
        for (int i = hosts.size() - 1; i >= 0; i--) leader.catalog.upsert(entry("se" + i, hosts.get(i)));
        // One the leader does not see (yet): the follower answers nothing for it.
        follower.catalog.upsert(entry("only-follower", "late.example.com"));

        await("the follower answers the leader's VIPs", Duration.ofSeconds(5), () -> hosts.stream().allMatch(h -> {
            int i = hosts.indexOf(h);
            return !leader.vips("se" + i, h).isEmpty() && leader.vips("se" + i, h).equals(follower.vips("se" + i, h));
        }));
        Map<String, List<String>> before = leader.allocator.allocations();
        assertEquals(4, before.size());
        await("the ConfigMap holds the leader's table", Duration.ofSeconds(5), () -> stored().equals(before));
        assertEquals(before, follower.allocator.allocations());
        assertEquals(List.of(), follower.vips("only-follower", "late.example.com"));
        assertFalse(stored().containsKey("late.example.com"), "the follower wrote an allocation");

        long killed = System.nanoTime();
        leader.kill();
        await("the follower takes the Lease", LEASE_DURATION.plus(RETRY.multipliedBy(4)), follower.allocator::leading);
        long takeoverMillis = (System.nanoTime() - killed) / 1_000_000;
        System.out.printf("VIP leader takeover after the leader vanished without releasing: %d ms (lease-duration %s)%n", takeoverMillis, LEASE_DURATION);
        assertEquals(follower.allocator.leaseIdentity().orElseThrow(),
                cluster.client().leases().inNamespace(NS).withName(LEASE).get().getSpec().getHolderIdentity());

        // The new leader continues from the table: the host only it saw gets a VIP now, and so does a new one.
        follower.catalog.upsert(entry("new", "new.example.com"));
        await("the new leader allocates", Duration.ofSeconds(5), () -> !follower.vips("new", "new.example.com").isEmpty()
                && !follower.vips("only-follower", "late.example.com").isEmpty());
        Map<String, List<String>> after = follower.allocator.allocations();
        before.forEach((host, vips) -> assertEquals(vips, after.get(host), "VIP of " + host + " changed on failover"));
        for (int i = 0; i < hosts.size(); i++) assertEquals(before.get(hosts.get(i)), follower.vips("se" + i, hosts.get(i)));
        assertEquals(6, after.size());
        assertEquals(6, after.values().stream().flatMap(List::stream).distinct().count(), "an address given twice");
        assertNotEquals(after.get("new.example.com"), after.get("late.example.com"));
        await("the ConfigMap holds the new leader's table", Duration.ofSeconds(5), () -> stored().equals(after));
    }

    @Test
    void withoutAClusterTheOneProcessAllocates() {
        CentralVipAllocator alone = new CentralVipAllocator();
        alone.config = config(Optional.empty(), LEASE_DURATION, RENEW_DEADLINE, RETRY);
        alone.configure();
        alone.start(VipStore.NONE, null, null);
        try {
            assertTrue(alone.leading());
            assertEquals(1, alone.vipsFor(entry("x", "x.example.com")).size());
        } finally {
            alone.close();
        }
    }

    @Test
    void aRenewDeadlineNotBelowTheLeaseDurationFailsNamingTheKey() {
        var bad = config(Optional.of(true), Duration.ofSeconds(10), Duration.ofSeconds(10), RETRY).leaderElection();
        var e = assertThrows(IllegalArgumentException.class, () -> VipLeadership.validate(bad));
        assertTrue(e.getMessage().startsWith("meshdns.discovery.leader-election.renew-deadline"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        var zero = config(Optional.of(true), Duration.ZERO, RENEW_DEADLINE, RETRY).leaderElection();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> VipLeadership.validate(zero)).getMessage()
                .startsWith("meshdns.discovery.leader-election.lease-duration"));
    }
}
