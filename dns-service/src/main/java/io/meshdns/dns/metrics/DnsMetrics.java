package io.meshdns.dns.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

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
 * <p>The counters are {@link LongAdder}s exported as function counters ({@link Counters} says why).
 */
@ApplicationScoped
public class DnsMetrics {
    /** CoreDNS's request-duration buckets: 0.25 ms doubling to about 8 s. */
    private static final Duration[] BUCKETS = buckets();
    /**
     * CoreDNS's request and response size buckets, in bytes, but for its {@code le="0"}: no DNS message is
     * empty, and Micrometer rejects a zero bound (the registration threw, and every query's metrics with it).
     */
    private static final double[] SIZE_BUCKETS = {100, 200, 300, 400, 511, 1023, 2047, 4095, 8291, 16e3, 32e3, 48e3, 64e3};
    /** CoreDNS reports these query types by name and every other one as "other". */
    private static final int[] NAMED_TYPES = {Type.A, Type.AAAA, Type.NS, Type.PTR, Type.SOA, Type.CNAME, Type.MX,
            Type.TXT, Type.SRV, Type.DS, Type.DNSKEY, Type.HTTPS, Type.SVCB, Type.ANY, Type.AXFR, Type.IXFR,
            Type.NAPTR, Type.CAA};

    private final ConcurrentMap<RequestKey, LongAdder> requests = new ConcurrentHashMap<>();
    private final ConcurrentMap<ResponseKey, LongAdder> responses = new ConcurrentHashMap<>();
    private final ConcurrentMap<DurationKey, Timer> durations = new ConcurrentHashMap<>();
    private final ConcurrentMap<SizeKey, DistributionSummary> requestSizes = new ConcurrentHashMap<>();
    private final ConcurrentMap<SizeKey, DistributionSummary> responseSizes = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, LongAdder> dnssecOk = new ConcurrentHashMap<>();
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

    @Inject
    public DnsMetrics(MeterRegistry registry) {
        this.registry = registry;
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
     * remembered answer, so a new object per call would cost 24 bytes per memo entry (2 MB at 100k).
     */
    private Meters resolve(MetersKey key) {
        LongAdder request = requests.computeIfAbsent(new RequestKey(key.zone, key.proto, key.ipv6, key.type),
                k -> counter("coredns.dns.requests", "Counter of DNS requests made per zone, protocol and family",
                        "server", server, "zone", k.zone, "proto", k.proto, "family", k.ipv6 ? "2" : "1", "type", k.type));
        LongAdder response = responses.computeIfAbsent(new ResponseKey(key.zone, key.rcode),
                k -> counter("coredns.dns.responses", "Counter of response status codes",
                        "server", server, "zone", k.zone, "rcode", Rcode.string(k.rcode)));
        Timer duration = durations.computeIfAbsent(new DurationKey(key.zone, key.type), k -> Timer.builder("coredns.dns.request.duration")
                .description("Histogram of the time (in seconds) each request took per zone")
                .tag("server", server).tag("zone", k.zone).tag("type", k.type)
                .serviceLevelObjectives(BUCKETS).register(registry));
        DistributionSummary requestSize = requestSizes.computeIfAbsent(new SizeKey(key.zone, key.proto), k -> size(
                "coredns.dns.request.size", "Size of the request in bytes per zone and protocol", k));
        DistributionSummary responseSize = responseSizes.computeIfAbsent(new SizeKey(key.zone, key.proto), k -> size(
                "coredns.dns.response.size", "Size of the returned response in bytes per zone and protocol", k));
        LongAdder dnssec = dnssecOk.computeIfAbsent(key.zone, zone -> counter("coredns.dns.do.requests",
                "Counter of DNS requests with DO bit set per zone", "server", server, "zone", zone));
        return new Meters(request, response, duration, requestSize, responseSize, dnssec);
    }

    private DistributionSummary size(String name, String description, SizeKey k) {
        return DistributionSummary.builder(name).baseUnit("bytes").description(description)
                .tag("server", server).tag("zone", k.zone).tag("proto", k.proto)
                .serviceLevelObjectives(SIZE_BUCKETS).register(registry);
    }

    /**
     * The counters and histograms of one kind of answered query. Recording one query touches only these
     * (adders and fixed-boundary histograms): no key, no allocation.
     */
    public record Meters(LongAdder requests, LongAdder responses, Timer duration, DistributionSummary requestSize,
                         DistributionSummary responseSize, LongAdder dnssecOk) {
        public void record(long nanos, int requestBytes, int responseBytes, boolean dnssecOkBit) {
            requests.increment();
            responses.increment();
            duration.record(nanos, TimeUnit.NANOSECONDS);
            requestSize.record(requestBytes);
            responseSize.record(responseBytes);
            if (dnssecOkBit) {
                dnssecOk.increment();
            }
        }
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

    private record DurationKey(String zone, String type) {
    }

    private record SizeKey(String zone, String proto) {
    }
}
