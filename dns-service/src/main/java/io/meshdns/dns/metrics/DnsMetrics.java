package io.meshdns.dns.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Query metrics under CoreDNS's names, so existing dashboards work:
 * {@code coredns_dns_requests_total{server,zone,proto,family,type}},
 * {@code coredns_dns_responses_total{server,zone,rcode}},
 * {@code coredns_dns_request_duration_seconds{server,zone,type}} (histogram, CoreDNS's buckets),
 * {@code coredns_dns_request_size_bytes{server,zone,proto}} and {@code coredns_dns_response_size_bytes{server,zone,proto}}
 * (histograms, CoreDNS's size buckets), {@code coredns_dns_do_requests_total{server,zone}},
 * {@code coredns_panics_total}, {@code coredns_build_info{version,revision,goversion}},
 * plus {@code meshdns_acl_dropped_total{proto}}. Meters are created once per label combination
 * and cached, so the query path does a map lookup, not a registry lookup with fresh Tags.
 *
 * <p>Nothing on the query path goes through Micrometer: a query updates the striped adders of its
 * {@link Meters} (one per zone, protocol, family, type and rcode). The counters are function counters
 * summing those adders at scrape time ({@link Counters} says why not Micrometer's {@code Counter}), the
 * histograms a Prometheus collector doing the same ({@link QueryHistograms}).
 *
 * <p>About 400 lines because every query metric's name, labels and scrape-time sum are declared here, in
 * one place, next to the adders the query path fills.
 */
@Singleton // no client proxy: called on every query (a proxy looked the instance up on each call)
public class DnsMetrics {
    /** CoreDNS's request-duration buckets: 0.25 ms doubling to about 8 s. */
    private static final Duration[] BUCKETS = buckets();
    /** The same bounds in nanoseconds, for the query path's bucket arithmetic ({@link #durationBucket}). */
    static final long[] DURATION_BOUNDS_NANOS = java.util.Arrays.stream(BUCKETS).mapToLong(Duration::toNanos).toArray();
    /**
     * CoreDNS's request and response size buckets, in bytes, but for its {@code le="0"}: no DNS message is
     * empty, and Micrometer rejects a zero bound (the registration threw, and every query's metrics with it).
     */
    static final double[] SIZE_BUCKETS = {100, 200, 300, 400, 511, 1023, 2047, 4095, 8291, 16e3, 32e3, 48e3, 64e3};
    /** CoreDNS reports these query types by name and every other one as "other". */
    private static final int[] NAMED_TYPES = {Type.A, Type.AAAA, Type.NS, Type.PTR, Type.SOA, Type.CNAME, Type.MX,
            Type.TXT, Type.SRV, Type.DS, Type.DNSKEY, Type.HTTPS, Type.SVCB, Type.ANY, Type.AXFR, Type.IXFR,
            Type.NAPTR, Type.CAA};

    /** The meters of each counter's label set, summed at scrape time. */
    private final ConcurrentMap<RequestKey, List<Meters>> requests = new ConcurrentHashMap<>();
    private final ConcurrentMap<ResponseKey, List<Meters>> responses = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, List<Meters>> dnssecOk = new ConcurrentHashMap<>();
    /** Every meters object, for the histograms. */
    private final List<Meters> all = new CopyOnWriteArrayList<>();
    private final List<Consumer<String>> serverListeners = new ArrayList<>();
    private final LongAdder panics;
    private final ConcurrentMap<MetersKey, Meters> meters = new ConcurrentHashMap<>();
    private final LongAdder aclDroppedUdp;
    private final LongAdder aclDroppedTcp;
    private final LongAdder malformed;
    private final ConcurrentMap<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, LongAdder> tsig = new ConcurrentHashMap<>();
    private volatile String server = "dns://:0";

    private final MeterRegistry registry;
    /** Where the histograms are registered; null without a Prometheus registry (then they are not exported). */
    private final PrometheusMeterRegistry prometheus;
    private final QueryHistograms histograms = new QueryHistograms(() -> all);

    /** {@code prometheus}: Quarkus's Prometheus registry, which the composite {@code registry} may receive only later. */
    @Inject
    public DnsMetrics(MeterRegistry registry, Instance<PrometheusMeterRegistry> prometheus) {
        this(registry, prometheus.isResolvable() ? prometheus.get() : prometheusIn(registry));
    }

    /** For a registry built by hand: the histograms go to it if it is (or holds) a Prometheus registry. */
    public DnsMetrics(MeterRegistry registry) {
        this(registry, prometheusIn(registry));
    }

    private DnsMetrics(MeterRegistry registry, PrometheusMeterRegistry prometheus) {
        this.registry = registry;
        this.prometheus = prometheus;
        if (prometheus != null) {
            prometheus.getPrometheusRegistry().register(histograms);
        }
        String acl = "Queries dropped (UDP) or connections closed (TCP) because the client is not in meshdns.dns.allowed-clients";
        this.aclDroppedUdp = counter("meshdns.acl.dropped", acl, "proto", "udp");
        this.aclDroppedTcp = counter("meshdns.acl.dropped", acl, "proto", "tcp");
        this.malformed = counter("meshdns.dns.malformed.requests",
                "Packets that did not parse as a DNS query: answered FORMERR or dropped");
        this.panics = counter("coredns.panics", "A metrics that counts the number of panics: queries whose handling threw, answered SERVFAIL");
        Gauge.builder("coredns.build.info", () -> 1)
                .description("A metric with a constant '1' value labeled by version, revision, and goversion from which meshdns was built")
                .tag("version", BuildInfo.version()).tag("revision", BuildInfo.revision())
                .tag("goversion", "java" + System.getProperty("java.version"))
                .register(registry);
    }

    private static PrometheusMeterRegistry prometheusIn(MeterRegistry registry) {
        if (registry instanceof PrometheusMeterRegistry p) {
            return p;
        }
        if (registry instanceof CompositeMeterRegistry c) {
            for (MeterRegistry child : c.getRegistries()) {
                if (child instanceof PrometheusMeterRegistry p) {
                    return p;
                }
            }
        }
        return null;
    }

    /** The registry outlives this bean in tests that restart the application: the collector goes with the bean. */
    @PreDestroy
    void close() {
        if (prometheus != null) {
            prometheus.getPrometheusRegistry().unregister(histograms);
        }
    }

    private LongAdder counter(String name, String description, String... tags) {
        return Counters.register(registry, name, description, tags);
    }

    /**
     * The UDP answer memo's size and evictions (see fastpath/README.md): read at scrape time, nothing on
     * the query path. {@code meshdns_dns_answer_memo_entries} and {@code meshdns_dns_answer_memo_evictions_total}.
     */
    public <T> void answerMemo(T memo, ToDoubleFunction<T> entries, ToDoubleFunction<T> evictions) {
        Gauge.builder("meshdns.dns.answer.memo.entries", memo, entries)
                .description("Answers remembered by the UDP fast path for the current snapshot")
                .register(registry);
        FunctionCounter.builder("meshdns.dns.answer.memo.evictions", memo, evictions)
                .description("Answers the UDP fast path's memo replaced by another key's (its slots were full)")
                .register(registry);
    }

    /** Set once the listeners are bound: {@code dns://127.0.0.1:5353}, CoreDNS's server label. */
    public void setServer(String server) {
        List<Consumer<String>> waiting;
        synchronized (serverListeners) {
            this.server = server;
            waiting = List.copyOf(serverListeners);
            serverListeners.clear();
        }
        waiting.forEach(l -> l.accept(server));
    }

    /**
     * Runs {@code register} with CoreDNS's server label once the listeners are bound (at once if they are):
     * for meters registered before the port is known, such as the forwarding cache's.
     */
    public void whenServerKnown(Consumer<String> register) {
        synchronized (serverListeners) {
            if (server.equals("dns://:0")) {
                serverListeners.add(register);
                return;
            }
        }
        register.accept(server);
    }

    /** A query whose handling threw (answered SERVFAIL): CoreDNS's {@code coredns_panics_total}. */
    public void panic() {
        panics.increment();
    }

    public void aclDropped(boolean tcp) {
        (tcp ? aclDroppedTcp : aclDroppedUdp).increment();
    }

    public void malformed() {
        malformed.increment();
    }

    /**
     * A step of the request path threw and the request was answered FORMERR or SERVFAIL instead:
     * {@code meshdns_dns_request_failures_total{stage}} ({@code decide}, {@code handler}, {@code transfer},
     * {@code encode}).
     */
    public void requestFailure(String stage) {
        failures.computeIfAbsent(stage, s -> counter("meshdns.dns.request.failures",
                "Requests whose handling threw at this stage, answered FORMERR or SERVFAIL", "stage", s)).increment();
    }

    /**
     * One signed request's TSIG verdict (RFC 8945): {@code meshdns_dns_tsig_requests_total{result}}, result one of
     * {@code verified}, {@code formerr}, {@code badkey}, {@code badsig}, {@code badtime}, {@code badtrunc},
     * {@code replayed}.
     */
    public void tsig(String result) {
        tsig.computeIfAbsent(result, r -> counter("meshdns.dns.tsig.requests",
                "Signed requests by the TSIG step's verdict", "result", r)).increment();
    }

    /** One answered query: {@code request} and {@code response} are the messages' sizes in bytes. */
    public void request(String zone, String proto, boolean ipv6, int qtype, int rcode, long nanos,
                        int requestBytes, int responseBytes, boolean dnssecOk) {
        meters(zone, proto, ipv6, qtype, rcode).record(nanos, requestBytes, responseBytes, dnssecOk);
    }

    /**
     * The three meters one answered query updates, for callers that answer the same kind of query again
     * and again (the fast path keeps them with its remembered answer: a hit then allocates no key).
     */
    public Meters meters(String zone, String proto, boolean ipv6, int qtype, int rcode) {
        MetersKey key = new MetersKey(zone, proto, ipv6, typeLabel(qtype), rcode);
        Meters found = meters.get(key);
        return found != null ? found : meters.computeIfAbsent(key, this::resolve);
    }

    /**
     * One shared {@link Meters} per kind of answered query: the fast path keeps one with each
     * remembered answer, so a new object per call would cost memory per memo entry. The counters read the
     * sums of their groups' meters at scrape time; the histograms are {@link QueryHistograms}'.
     */
    private Meters resolve(MetersKey key) {
        Meters m = new Meters(server, key.zone, key.proto, key.type);
        requests.computeIfAbsent(new RequestKey(key.zone, key.proto, key.ipv6, key.type), k -> group(
                "coredns.dns.requests", "Counter of DNS requests made per zone, protocol and family", Meters::count,
                "server", server, "zone", k.zone, "proto", k.proto, "family", k.ipv6 ? "2" : "1", "type", k.type)).add(m);
        responses.computeIfAbsent(new ResponseKey(key.zone, key.rcode), k -> group(
                "coredns.dns.responses", "Counter of response status codes", Meters::count,
                "server", server, "zone", k.zone, "rcode", Rcode.string(k.rcode))).add(m);
        dnssecOk.computeIfAbsent(key.zone, zone -> group("coredns.dns.do.requests",
                "Counter of DNS requests with DO bit set per zone", Meters::dnssecOkCount, "server", server, "zone", zone)).add(m);
        all.add(m);
        return m;
    }

    /** A counter that reads {@code value} summed over the meters added to the returned list, at scrape time. */
    private List<Meters> group(String name, String description, ToLongFunction<Meters> value, String... tags) {
        List<Meters> members = new CopyOnWriteArrayList<>();
        FunctionCounter.builder(name, members, g -> {
            long sum = 0;
            for (Meters m : g) {
                sum += value.applyAsLong(m);
            }
            return sum;
        }).tags(tags).description(description).register(registry);
        return members;
    }

    /**
     * What one kind of answered query (zone, protocol, family, type, rcode) counts, in adders read at scrape
     * time: a query increments one bucket of each of the three histograms and adds to their sums, nothing
     * else (the request and response counters are these meters' bucket sums). Striped adders: the UDP
     * workers' event loops record into the same meters without sharing a cache line.
     */
    public static final class Meters {
        private final String server;
        private final String zone;
        private final String proto;
        private final String type;
        private final LongAdder[] duration = adders(DURATION_BOUNDS_NANOS.length + 1);
        private final LongAdder durationNanos = new LongAdder();
        private final LongAdder[] requestSize = adders(SIZE_BUCKETS.length + 1);
        private final LongAdder requestBytes = new LongAdder();
        private final LongAdder[] responseSize = adders(SIZE_BUCKETS.length + 1);
        private final LongAdder responseBytes = new LongAdder();
        private final LongAdder dnssecOk = new LongAdder();

        Meters(String server, String zone, String proto, String type) {
            this.server = server;
            this.zone = zone;
            this.proto = proto;
            this.type = type;
        }

        public void record(long nanos, int requestBytes, int responseBytes, boolean dnssecOkBit) {
            duration[durationBucket(nanos)].increment();
            durationNanos.add(nanos);
            requestSize[sizeBucket(requestBytes)].increment();
            this.requestBytes.add(requestBytes);
            responseSize[sizeBucket(responseBytes)].increment();
            this.responseBytes.add(responseBytes);
            if (dnssecOkBit) {
                dnssecOk.increment();
            }
        }

        /** Queries recorded: the duration buckets' sum (every query lands in exactly one). */
        long count() {
            long n = 0;
            for (LongAdder b : duration) {
                n += b.sum();
            }
            return n;
        }

        long dnssecOkCount() {
            return dnssecOk.sum();
        }

        String server() {
            return server;
        }

        String zone() {
            return zone;
        }

        String proto() {
            return proto;
        }

        String type() {
            return type;
        }

        void addDuration(long[] into) {
            add(duration, durationNanos, into);
        }

        void addRequestSize(long[] into) {
            add(requestSize, requestBytes, into);
        }

        void addResponseSize(long[] into) {
            add(responseSize, responseBytes, into);
        }

        /** Adds the buckets, then the sum, to {@code into} (one longer than the buckets). */
        private static void add(LongAdder[] buckets, LongAdder sum, long[] into) {
            for (int i = 0; i < buckets.length; i++) {
                into[i] += buckets[i].sum();
            }
            into[buckets.length] += sum.sum();
        }

        private static LongAdder[] adders(int n) {
            LongAdder[] a = new LongAdder[n];
            for (int i = 0; i < n; i++) {
                a[i] = new LongAdder();
            }
            return a;
        }
    }

    /**
     * The duration bucket of {@code nanos}: CoreDNS's bounds are 0.25 ms doubling, so the bucket is the bit length
     * of the number of whole 0.25 ms steps past the first bound, no search; the last one is +Inf.
     */
    static int durationBucket(long nanos) {
        long steps = (nanos - 1) / DURATION_BOUNDS_NANOS[0];
        int bucket = steps <= 0 ? 0 : 64 - Long.numberOfLeadingZeros(steps);
        return Math.min(bucket, DURATION_BOUNDS_NANOS.length);
    }

    /** The size bucket of a message of {@code bytes}: the first bound it does not exceed (DNS messages are mostly under 100). */
    static int sizeBucket(int bytes) {
        int i = 0;
        while (i < SIZE_BUCKETS.length && bytes > SIZE_BUCKETS[i]) {
            i++;
        }
        return i;
    }

    static String typeLabel(int qtype) {
        for (int named : NAMED_TYPES) {
            if (named == qtype) {
                return Type.string(qtype);
            }
        }
        return "other";
    }

    /** CoreDNS's latency buckets (0.25 ms doubling 16 times), shared by the request and forward histograms. */
    public static Duration[] coreDnsLatencyBuckets() {
        return BUCKETS.clone();
    }

    private static Duration[] buckets() {
        Duration[] b = new Duration[16];
        long micros = 250;
        for (int i = 0; i < b.length; i++) {
            b[i] = Duration.ofNanos(micros * 1000);
            micros *= 2;
        }
        return b;
    }

    private record MetersKey(String zone, String proto, boolean ipv6, String type, int rcode) {
    }

    private record RequestKey(String zone, String proto, boolean ipv6, String type) {
    }

    private record ResponseKey(String zone, int rcode) {
    }

}
