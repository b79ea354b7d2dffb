package io.meshdns.bench.discovery;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.bench.discovery.Workload.Svc;
import io.meshdns.bench.discovery.WatchRecorder.DeltaLine;
import io.meshdns.model.ObjectRef;
import io.meshdns.testsupport.LogLines;
import io.meshdns.testsupport.MockKubernetesCluster;
import org.xbill.DNS.Name;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.meshdns.bench.discovery.BenchReport.f1;

/**
 * The discovery benchmark: 10k Services with 50k endpoints in fabric8 CRUD API servers, the
 * packaged discovery-service watching them and a packaged dns-service following it. Reports
 * discovery-service's memory, the initial sync, the time from an API call returning to the first
 * correct UDP answer at dns-service (p50/p99/max), and the bytes of the delta line per changed service.
 * Run through {@code bench/discovery}, which records the machine and the commit beside the figures.
 *
 * <p>The run is one class, read top to bottom as the benchmark's script, because its steps share the API servers, the
 * live services and the figures; the workload, the probe, the watch recorder, the processes and the report are
 * files of their own.
 */
public final class DiscoveryBench {

    enum EventKind {
        NEW("new service (EndpointSlice + Service create)"),
        CLUSTER_IP("ClusterIP change (Service update)"),
        ENDPOINTS("endpoint change (EndpointSlice update)"),
        DELETE("Service delete");

        final String label;

        EventKind(String label) {
            this.label = label;
        }
    }

    /** One measured API event. Times in ms from the timed API call returning; -1 when not observed. */
    record Result(int seq, EventKind kind, String service, double callMs, double toDeltaMs, double toAnswerMs, boolean alreadyAnswered,
                  List<DeltaLine> lines, String load) {
    }

    /** Held so the level sticks: the mock server logs every request at INFO through java.util.logging. */
    private static final java.util.logging.Logger MOCK_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    private final Map<String, String> opt;
    private final Path root;
    private final Path out;
    private final Path work;
    private final String token;
    private final PrintStream log = System.err;
    private final Map<String, String> kv = new LinkedHashMap<>();
    private final List<MockKubernetesCluster> apis = new ArrayList<>();
    private final Map<String, KubernetesClient> clients = new LinkedHashMap<>();
    private final Map<String, Svc> live = new LinkedHashMap<>();
    private final List<String> liveNames = new ArrayList<>();

    private DiscoveryBench(Map<String, String> opt) {
        this.opt = opt;
        root = Path.of(opt.get("root")).toAbsolutePath().normalize();
        out = Path.of(opt.get("out")).toAbsolutePath();
        work = Path.of(opt.getOrDefault("work", out.resolve("work").toString())).toAbsolutePath();
        token = opt.get("token");
    }

    public static void main(String[] argv) throws Exception {
        MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
        Map<String, String> o = new LinkedHashMap<>(Map.of(
                "root", ".", "services", "10000", "endpoints", "50000", "headless-percent", "10", "per-namespace", "100",
                "clusters", "1", "events", "300", "warmup-events", "20", "seed", "1", "poll-us", "1000"));
        o.putAll(Map.of("load-threads", "4", "token", "bench-token", "event-timeout-s", "60",
                "discovery-java-opts", "-Xmx256m -XX:+UseSerialGC",
                "dns-java-opts", "-Xms256m -Xmx256m -XX:+UseParallelGC"));
        for (int i = 0; i < argv.length; i++) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) throw new IllegalArgumentException("expected --key value, got " + argv[i]);
            String k = argv[i].substring(2);
            if (!o.containsKey(k) && !k.equals("out") && !k.equals("work")) throw new IllegalArgumentException("unknown option --" + k);
            o.put(k, argv[++i]);
        }
        if (!o.containsKey("out")) throw new IllegalArgumentException("--out DIR is required");
        // fabric8's and Vert.x's non-daemon threads must not keep the harness alive, nor hide a failure.
        try {
            new DiscoveryBench(o).run();
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private int intOpt(String k) {
        try {
            return Integer.parseInt(opt.get(k));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + k + " must be an integer, got " + opt.get(k));
        }
    }

    private void run() throws Exception {
        Files.createDirectories(out);
        Files.createDirectories(work);
        int services = intOpt("services");
        int clusterCount = intOpt("clusters");
        List<String> clusterNames = new ArrayList<>();
        for (int c = 0; c < clusterCount; c++) clusterNames.add("cluster-" + c);
        Workload workload = new Workload(clusterNames, intOpt("per-namespace"), intOpt("headless-percent"), services);
        Random random = new Random(Long.parseLong(opt.get("seed")));
        opt.forEach((k, v) -> kv.put("opt." + k, v));

        ServiceJar discovery = null;
        ServiceJar dns = null;
        WatchRecorder watch = null;
        try {
            // ---- the API servers and the data
            for (String c : clusterNames) {
                MockKubernetesCluster api = new MockKubernetesCluster(c);
                apis.add(api);
                clients.put(c, api.client());
            }
            List<Svc> initial = workload.initial(services, intOpt("endpoints"));
            long endpoints = initial.stream().mapToLong(s -> s.endpoints().size()).sum();
            long headless = initial.stream().filter(Svc::headless).count();
            say("loading %d services (%d headless), %d EndpointSlices with %d endpoints, %d namespaces, into %d API server(s); load %s",
                    services, headless, services, endpoints, workload.namespaceNames().size(), clusterCount, loadAvg());
            long t = System.nanoTime();
            load(workload.namespaceNames(), initial);
            kv.put("load_s", secs(System.nanoTime() - t));
            kv.put("services", String.valueOf(services));
            kv.put("headless_services", String.valueOf(headless));
            kv.put("endpoints", String.valueOf(endpoints));
            kv.put("namespaces", String.valueOf(workload.namespaceNames().size()));
            say("loaded in %s s", kv.get("load_s"));

            // ---- discovery-service
            Path local = apis.get(0).writeKubeconfig(work.resolve("kube-local"));
            Path remotes = Files.createDirectories(work.resolve("kube-remotes"));
            for (MockKubernetesCluster api : apis.subList(1, apis.size())) api.writeKubeconfig(remotes);
            discovery = new ServiceJar("discovery-service", root.resolve("discovery-service/target/quarkus-app/quarkus-run.jar"),
                    split(opt.get("discovery-java-opts")), out)
                    // The packaged service reaches its local cluster through KUBECONFIG (api-server-url is fixed at build time).
                    .env("KUBECONFIG", local.toString())
                    .property("meshdns.discovery.cluster-name", clusterNames.get(0))
                    .property("meshdns.discovery.namespace", "meshdns")
                    .property("meshdns.discovery.remote-kubeconfig-dir", remotes.toString())
                    .property("meshdns.discovery.shared-token", token)
                    // Ready must mean "every cluster listed": never serve a half catalog because a list was slow.
                    .property("meshdns.discovery.initial-sync-timeout", "600s");
            kv.put("discovery_java_opts", opt.get("discovery-java-opts"));
            say("starting discovery-service; load %s", loadAvg());
            kv.put("load_at_discovery_start", loadAvg());
            discovery.start();
            long ready = discovery.awaitReady(Duration.ofMinutes(10));
            kv.put("discovery_ready_s", secs(ready - discovery.startNanos()));
            // Ready means every cluster listed; the catalog version holding the lists follows within a batch window.
            String status = "";
            long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            while (true) {
                try {
                    status = discovery.get("/v1/status", token).body();
                } catch (java.net.http.HttpTimeoutException slow) {
                    // A blocked event loop in discovery (see blockedEventLoop) is a finding, not a reason to stop.
                    say("GET /v1/status timed out; retrying");
                    continue;
                }
                String entries = group(status, "\"entries\":(\\d+)");
                if (!entries.equals("-") && Long.parseLong(entries) >= 2L * services) break;
                if (System.nanoTime() > deadline) throw new IllegalStateException("discovery's catalog never held the services: " + status);
                Thread.sleep(20);
            }
            kv.put("discovery_sync_s", secs(System.nanoTime() - discovery.startNanos()));
            kv.put("discovery_entries", group(status, "\"entries\":(\\d+)"));
            say("discovery-service ready after %s s, catalog complete after %s s (process start to /v1/status holding %s entries)",
                    kv.get("discovery_ready_s"), kv.get("discovery_sync_s"), kv.get("discovery_entries"));
            snapshotSizes(discovery);

            watch = new WatchRecorder(discovery.httpUrl(), token);
            watch.awaitVersion(120_000);

            // ---- dns-service following it
            dns = new ServiceJar("dns-service", root.resolve("dns-service/target/quarkus-app/quarkus-run.jar"),
                    split(opt.get("dns-java-opts")), out)
                    .property("meshdns.dns.bind-address", "127.0.0.1")
                    .property("meshdns.dns.port", "0")
                    // Every name asked is in cluster.local; an upstream on loopback nobody serves keeps forwarding local.
                    .property("meshdns.dns.upstreams", "127.0.0.1:" + ServiceJar.freePort())
                    .property("meshdns.dns.discovery-url", discovery.httpUrl())
                    .property("meshdns.dns.discovery-token", token)
                    .property("meshdns.dns.cluster-name", clusterNames.get(0))
                    .property("meshdns.dns.snapshot-file", work.resolve("dns-snapshot.json").toString());
            Files.deleteIfExists(work.resolve("dns-snapshot.json"));
            kv.put("dns_java_opts", opt.get("dns-java-opts"));
            kv.put("load_at_dns_start", loadAvg());
            dns.start();
            int port = dnsPort(dns);
            try (DnsProbe probe = new DnsProbe(port)) {
                // The catalog is complete at the node when the last service of every cluster answers.
                long full = 0;
                for (String c : clusterNames) {
                    Svc last = null;
                    for (Svc s : initial) if (s.cluster().equals(c)) last = s;
                    if (last == null) continue;
                    long at = probe.await(DnsProbe.name(last.fqdn()), last.expectedA(), 5_000_000L, Duration.ofMinutes(10).toNanos());
                    if (at < 0) throw new IllegalStateException("dns-service never answered " + last.fqdn() + " (log " + dns.log() + ")");
                    full = Math.max(full, at);
                }
                kv.put("dns_sync_s", secs(full - dns.startNanos()));
                say("dns-service answers the whole catalog %s s after its process start", kv.get("dns_sync_s"));

                // ---- memory after the initial sync
                Thread.sleep(2000);
                memory("after_sync", discovery, dns);

                // ---- API events
                for (Svc s : initial) put(s);
                int warm = intOpt("warmup-events");
                int n = intOpt("events");
                List<EventKind> plan = plan(warm + n, random);
                say("%d warm-up events, then %d measured events (poll every %d us); load %s", warm, n, intOpt("poll-us"), loadAvg());
                kv.put("load_at_events_start", loadAvg());
                double applyCount0 = dns.metric("meshdns_discovery_client_apply_seconds_count");
                double applySum0 = dns.metric("meshdns_discovery_client_apply_seconds_sum");
                List<Result> results = new ArrayList<>();
                long eventsStart = System.nanoTime();
                for (int i = 0; i < plan.size(); i++) {
                    if (i == warm) eventsStart = System.nanoTime();
                    Result r = event(i - warm, plan.get(i), workload, random, probe, watch, dns);
                    if (i >= warm) results.add(r);
                    if ((i + 1) % 50 == 0) say("  %d/%d events, load %s", i + 1, plan.size(), loadAvg());
                }
                long eventsEnd = System.nanoTime();
                kv.put("load_at_events_end", loadAvg());
                // dns-service's own timer of apply + compile + publish, over the events (warm-up included).
                double applies = dns.metric("meshdns_discovery_client_apply_seconds_count") - applyCount0;
                kv.put("dns_applies", String.format("%.0f", applies));
                kv.put("dns_apply_ms_mean", f1(applies > 0 ? (dns.metric("meshdns_discovery_client_apply_seconds_sum") - applySum0) * 1000 / applies : Double.NaN));
                memory("after_events", discovery, dns);
                blockedEventLoop("discovery", discovery);
                blockedEventLoop("dns", dns);
                for (var e : Map.of("discovery", discovery, "dns", dns).entrySet()) {
                    long[] gc = e.getValue().gcPauses(eventsStart, eventsEnd);
                    kv.put(e.getKey() + "_gc_pauses_events", String.valueOf(gc[0]));
                    kv.put(e.getKey() + "_gc_pause_max_ms_events", String.valueOf(gc[1]));
                }
                BenchReport.write(results, kv, out, intOpt("poll-us"));
            }
        } finally {
            if (watch != null) watch.close();
            if (dns != null) dns.close();
            if (discovery != null) discovery.close();
            for (MockKubernetesCluster api : apis) api.close();
        }
    }

    // ------------------------------------------------------------------ loading

    private void load(List<String> namespaces, List<Svc> initial) throws Exception {
        for (KubernetesClient c : clients.values()) {
            for (String ns : namespaces) c.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
        }
        clients.get(apis.get(0).name()).namespaces().resource(new NamespaceBuilder().withNewMetadata().withName("meshdns").endMetadata().build()).create();
        ExecutorService pool = Executors.newFixedThreadPool(intOpt("load-threads"));
        AtomicInteger done = new AtomicInteger();
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (Svc s : initial) {
                fs.add(pool.submit(() -> {
                    KubernetesClient c = clients.get(s.cluster());
                    c.services().resource(s.service()).create();
                    c.discovery().v1().endpointSlices().resource(s.slice()).create();
                    int d = done.incrementAndGet();
                    if (d % 2000 == 0) say("  %d services loaded", d);
                    return null;
                }));
            }
            for (Future<?> f : fs) f.get();
        } finally {
            pool.shutdownNow();
        }
    }

    // ------------------------------------------------------------------ events

    /** Equal shares of the four kinds, shuffled with the seed. */
    private static List<EventKind> plan(int n, Random random) {
        List<EventKind> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(EventKind.values()[i % EventKind.values().length]);
        Collections.shuffle(out, random);
        return out;
    }

    private void put(Svc s) {
        if (live.put(s.name(), s) == null) liveNames.add(s.name());
    }

    private Svc pick(Random random, java.util.function.Predicate<Svc> filter) {
        for (int tries = 0; tries < 100_000; tries++) {
            Svc s = live.get(liveNames.get(random.nextInt(liveNames.size())));
            if (filter.test(s)) return s;
        }
        throw new IllegalStateException("no service matches");
    }

    private void remove(Svc s) {
        live.remove(s.name());
        liveNames.remove(s.name());
    }

    /**
     * One API event, from a quiet state to a quiet state: the timed API call, the poll until dns-service
     * answers as the change says, then the event's remaining calls, then a wait until the watch stream
     * carried every ref the event touched and dns-service applied the latest version, so no event's work
     * spills into the next one's window.
     */
    private Result event(int seq, EventKind kind, Workload workload, Random random, DnsProbe probe, WatchRecorder watch, ServiceJar dns) throws Exception {
        Svc target;
        List<String> expected;
        ObjectRef timedRef;
        Set<ObjectRef> refs = new LinkedHashSet<>();
        Runnable timedCall;
        Runnable after = () -> { };
        switch (kind) {
            case NEW -> {
                Svc s = workload.next(random);
                KubernetesClient c = clients.get(s.cluster());
                target = s;
                expected = s.expectedA();
                timedRef = s.serviceRef();
                refs.add(s.sliceRef());
                refs.add(s.serviceRef());
                // A controller writes the slice right behind the Service; the answer needs the Service (and, headless, the slice).
                timedCall = () -> {
                    c.discovery().v1().endpointSlices().resource(s.slice()).create();
                    c.services().resource(s.service()).create();
                };
                put(s);
            }
            case CLUSTER_IP -> {
                Svc old = pick(random, s -> !s.headless());
                Svc s = old.withClusterIp(workload.clusterIp());
                KubernetesClient c = clients.get(s.cluster());
                target = s;
                expected = s.expectedA();
                timedRef = s.serviceRef();
                refs.add(timedRef);
                timedCall = () -> c.services().resource(s.service()).update();
                put(s);
            }
            case ENDPOINTS -> {
                Svc old = pick(random, Svc::headless);
                List<String> eps = new ArrayList<>(old.endpoints());
                eps.set(random.nextInt(eps.size()), workload.endpointIp());
                Svc s = old.withEndpoints(eps);
                KubernetesClient c = clients.get(s.cluster());
                target = s;
                expected = s.expectedA();
                timedRef = s.sliceRef();
                refs.add(timedRef);
                timedCall = () -> c.discovery().v1().endpointSlices().resource(s.slice()).update();
                put(s);
            }
            case DELETE -> {
                Svc s = pick(random, x -> true);
                KubernetesClient c = clients.get(s.cluster());
                target = s;
                expected = List.of("[NXDOMAIN]");
                timedRef = s.serviceRef();
                refs.add(timedRef);
                refs.add(s.sliceRef());
                timedCall = () -> c.services().inNamespace(s.namespace()).withName(s.name()).delete();
                // The garbage collector removes the slice after its Service; untimed.
                after = () -> c.discovery().v1().endpointSlices().inNamespace(s.namespace()).withName(s.sliceName()).delete();
                remove(s);
            }
            default -> throw new IllegalStateException();
        }
        Name name = DnsProbe.name(target.fqdn());
        boolean already = probe.a(name).equals(expected);
        watch.forget(refs);
        String load = loadAvg();

        long c0 = System.nanoTime();
        timedCall.run();
        long t0 = System.nanoTime();
        long answered = probe.await(name, expected, intOpt("poll-us") * 1000L, intOpt("event-timeout-s") * 1_000_000_000L);
        after.run();

        // Quiesce: every ref of this event announced on the watch, and dns-service at the stream's version.
        List<DeltaLine> lines = new ArrayList<>();
        DeltaLine timed = null;
        for (ObjectRef r : refs) {
            DeltaLine d = watch.awaitRef(r, intOpt("event-timeout-s") * 1000L);
            if (d == null) {
                say("warning: event %d (%s %s): no delta carried %s", seq, kind, target.name(), r);
                continue;
            }
            if (r.equals(timedRef)) timed = d;
            if (!lines.contains(d)) lines.add(d);
        }
        awaitApplied(dns, watch.version());
        if (answered < 0) say("warning: event %d (%s %s): no answer %s within %s s", seq, kind, target.name(), expected, opt.get("event-timeout-s"));
        return new Result(seq, kind, target.name(), ms(t0 - c0), timed == null ? -1 : ms(timed.arrivedNanos() - t0),
                answered < 0 ? -1 : ms(answered - t0), already, lines, load);
    }

    private void awaitApplied(ServiceJar dns, long version) throws Exception {
        long deadline = System.nanoTime() + intOpt("event-timeout-s") * 1_000_000_000L;
        while (dns.metric("meshdns_discovery_client_version") < version) {
            if (System.nanoTime() > deadline) {
                say("warning: dns-service did not reach version %d", version);
                return;
            }
            Thread.sleep(10);
        }
    }

    // ------------------------------------------------------------------ measurements

    private void memory(String when, ServiceJar discovery, ServiceJar dns) throws Exception {
        String load = loadAvg();
        ServiceJar.Memory before = discovery.memory(false);
        ServiceJar.Memory d = discovery.memory(true);
        ServiceJar.Memory n = dns.memory(true);
        kv.put("discovery_rss_mb_" + when + "_before_gc", f1(before.rssMb()));
        kv.put("discovery_heap_used_mb_" + when + "_before_gc", f1(before.heapUsedMb()));
        kv.put("discovery_rss_mb_" + when, f1(d.rssMb()));
        kv.put("discovery_peak_rss_mb_" + when, f1(d.peakRssMb()));
        kv.put("discovery_heap_used_mb_" + when, f1(d.heapUsedMb()));
        kv.put("discovery_heap_committed_mb_" + when, f1(d.heapCommittedMb()));
        kv.put("dns_rss_mb_" + when, f1(n.rssMb()));
        kv.put("dns_heap_used_mb_" + when, f1(n.heapUsedMb()));
        kv.put("load_at_memory_" + when, load);
        say("memory %s: discovery-service RSS %s MB (before GC %s, peak %s), heap used %s MB; dns-service RSS %s MB, heap used %s MB; load %s",
                when, f1(d.rssMb()), f1(before.rssMb()), f1(d.peakRssMb()), f1(d.heapUsedMb()), f1(n.rssMb()), f1(n.heapUsedMb()), load);
    }

    private void snapshotSizes(ServiceJar discovery) throws Exception {
        HttpClient http = ServiceJar.http();
        for (boolean gz : new boolean[]{false, true}) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(discovery.httpUrl() + "/v1/snapshot")).header("Authorization", "Bearer " + token);
            if (gz) b.header("Accept-Encoding", "gzip");
            // java.net.http never decompresses: the body is what went over the wire.
            HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() != 200) throw new IllegalStateException("GET /v1/snapshot: " + r.statusCode() + " " + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
            kv.put(gz ? "snapshot_gzip_bytes" : "snapshot_bytes", String.valueOf(r.body().length));
        }
    }

    /** Vert.x's blocked-thread warnings in a service's log: how often, and the longest block seen. */
    private void blockedEventLoop(String key, ServiceJar service) throws IOException {
        Matcher m = Pattern.compile("Thread\\[vert\\.x-eventloop[^]]*] has been blocked for (\\d+) ms").matcher(Files.readString(service.log()));
        int n = 0;
        long max = 0;
        while (m.find()) {
            n++;
            max = Math.max(max, Long.parseLong(m.group(1)));
        }
        kv.put(key + "_event_loop_blocked_warnings", String.valueOf(n));
        kv.put(key + "_event_loop_blocked_max_ms", String.valueOf(max));
    }

    private int dnsPort(ServiceJar dns) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (System.nanoTime() < deadline) {
            dns.requireAlive();
            Matcher m = LogLines.DNS_SERVICE_PORT.matcher(Files.readString(dns.log()));
            if (m.find()) return Integer.parseInt(m.group(1));
            Thread.sleep(20);
        }
        throw new IllegalStateException("dns-service did not log its port (log " + dns.log() + ")");
    }

    // ------------------------------------------------------------------ small helpers

    private static String group(String s, String regex) {
        Matcher m = Pattern.compile(regex).matcher(s);
        return m.find() ? m.group(1) : "-";
    }

    private static List<String> split(String s) {
        return Arrays.stream(s.trim().split("\\s+")).filter(x -> !x.isEmpty()).toList();
    }

    static String loadAvg() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "-";
        }
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static String secs(long nanos) {
        return String.format("%.2f", nanos / 1e9);
    }

    private void say(String fmt, Object... a) {
        log.printf("[discovery-bench %s] %s%n", Instant.now().toString().substring(11, 19), String.format(fmt, a));
    }
}
