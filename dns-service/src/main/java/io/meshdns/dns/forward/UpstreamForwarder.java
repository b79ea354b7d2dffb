package io.meshdns.dns.forward;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.meshdns.dns.cache.CacheKey;
import io.meshdns.dns.cache.CachedResponse;
import io.meshdns.dns.cache.DnsCache;
import io.meshdns.dns.metrics.Counters;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import org.jboss.logging.Logger;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * The {@link Forwarder}: cache first, then the upstreams of the most specific zone forward (or the
 * default upstreams) in policy order, each with a timeout; UDP with a TCP retry on truncation.
 *
 * <p>Failure semantics: a timeout or network error marks one failure of that upstream and moves to
 * the next; an upstream SERVFAIL or REFUSED also moves to the next. When every attempt failed, a stale
 * cache entry is served if there is one (RFC 8767), else the last upstream error response, else
 * SERVFAIL. Past {@code max-concurrent} queries in flight, the answer is REFUSED at once.
 *
 * <p>Loop detection follows CoreDNS's loop plugin: at start each upstream gets an HINFO query for a
 * random name {@code <n>.<n>.}; if that name later comes back to {@link #forward}, queries to that
 * upstream reach us again, so it is disabled and an ERROR names it.
 */
public final class UpstreamForwarder implements Forwarder, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(UpstreamForwarder.class);
    private static final int LOOP_PROBE_ATTEMPTS = 3;

    private final Vertx vertx;
    private final ForwardSettings settings;
    private final DnsCache cache;
    private final UpstreamTransport transport;
    private final Route defaultRoute;
    private final List<Route> zoneRoutes;
    private final List<UpstreamState> allUpstreams;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder maxConcurrentRejects;
    private final Map<Name, UpstreamState> loopProbes = new ConcurrentHashMap<>();
    private volatile boolean anyLooping;
    private long healthTimer = -1;
    private long loopTimer = -1;

    /**
     * @param cache null when caching is disabled
     */
    public UpstreamForwarder(Vertx vertx, ForwardSettings settings, DnsCache cache, MeterRegistry registry) {
        this.vertx = vertx;
        this.settings = settings;
        this.cache = cache;
        this.transport = new UpstreamTransport(vertx, settings.udpSockets(), settings.udpSocketQueries(), settings.timeout(),
                settings.caseRandomization(), settings.streams());
        Map<java.net.InetSocketAddress, UpstreamState> states = new LinkedHashMap<>();
        this.defaultRoute = new Route(null, stateFor(settings.upstreams(), states, registry));
        List<Route> routes = new ArrayList<>();
        for (ZoneForward z : settings.zoneForwards()) {
            routes.add(new Route(z.zone(), stateFor(z.servers(), states, registry)));
        }
        this.zoneRoutes = List.copyOf(routes);
        this.allUpstreams = List.copyOf(states.values());
        this.maxConcurrentRejects = Counters.register(registry, "coredns.forward.max.concurrent.rejects",
                "Queries refused because max-concurrent was reached");
    }

    private List<UpstreamState> stateFor(List<Upstream> upstreams, Map<java.net.InetSocketAddress, UpstreamState> states,
                                         MeterRegistry registry) {
        List<UpstreamState> list = new ArrayList<>();
        for (Upstream u : upstreams) {
            list.add(states.computeIfAbsent(u.address(), a -> new UpstreamState(u, settings.maxFails(), registry)));
        }
        return List.copyOf(list);
    }

    /**
     * Binds the first upstream socket of each family and starts health checks and the loop probe. Call once,
     * off the event loop; the pool grows as queries need sockets.
     */
    public UpstreamForwarder start() {
        boolean v4 = allUpstreams.stream().anyMatch(s -> !s.upstream.isIpv6());
        boolean v6 = allUpstreams.stream().anyMatch(s -> s.upstream.isIpv6());
        transport.open(v4, v6);
        healthTimer = vertx.setPeriodic(settings.healthCheck().toMillis(), t -> healthCheck());
        if (settings.loopDetect()) {
            loopTimer = vertx.setTimer(Math.max(1, settings.loopProbeDelay().toMillis()), t -> sendLoopProbes());
        }
        LOG.infof("forwarding to %s (policy %s%s)%s", defaultRoute.upstreams.stream().map(s -> s.upstream.label()).toList(),
                settings.policy(), settings.forceTcp() ? ", TCP only" : "",
                zoneRoutes.isEmpty() ? "" : ", zone forwards " + settings.zoneForwards());
        return this;
    }

    /** Binds the rest of the source-port pool in the background (once the listeners are open: it is not needed before). */
    /** Open TCP/TLS connections per upstream label. */
    Map<String, Integer> openConnections() {
        return transport.openConnections();
    }



    int pooledSockets() {
        return transport.pooledSockets();
    }

    /** The channel classes of the upstream UDP sockets bound now. */
    java.util.Set<Class<?>> udpChannelClasses() {
        return transport.udpChannelClasses();
    }

    /** The channel classes of the TCP and TLS upstream connections open now. */
    java.util.Set<Class<?>> streamChannelClasses() {
        return transport.streamChannelClasses();
    }

    public DnsCache cache() {
        return cache;
    }

    /** Upstreams that a loop was detected through; they are no longer used. */
    public List<Upstream> loopingUpstreams() {
        return allUpstreams.stream().filter(UpstreamState::isLooping).map(s -> s.upstream).toList();
    }

    /**
     * The UDP fast path of a listener that already knows this query goes to {@link #forward} (see
     * {@code fastpath.CacheReplay}): a fresh cached answer to {@code key} rendered for the raw
     * {@code query} (its ID, RD and CD bits, and the case of its question name, which starts at offset
     * 12 and is {@code nameLength} bytes long), with {@code additional} (the listener's OPT, or null)
     * appended; null when {@link #forward} must answer: caching off, a loop-probe name, no fresh entry,
     * or an answer longer than {@code maxLength} (the slow path truncates it). Only a returned answer
     * is counted, as a cache hit, so the fallback counts the query exactly once.
     */
    @Override
    public byte[] cachedAnswerWire(CacheKey key, byte[] query, int nameLength, byte[] additional, int maxLength) {
        if (cache == null || !loopProbes.isEmpty() && loopProbes.containsKey(key.name())) {
            return null;
        }
        CachedResponse hit = cache.lookupFitting(key, maxLength - (additional == null ? 0 : additional.length));
        if (hit == null) {
            return null;
        }
        int id = ((query[0] & 0xFF) << 8) | (query[1] & 0xFF);
        return hit.renderWire(id, query, 12, nameLength, (query[2] & 0x01) != 0, (query[3] & 0x10) != 0,
                cache.nowMillis(), additional);
    }

    public int inFlight() {
        return inFlight.get();
    }

    @Override
    public CompletionStage<Message> forward(Message query) {
        return forward(query, null);
    }

    @Override
    public CompletionStage<Result> resolve(Message query) {
        boolean[] cached = new boolean[1];
        return forward(query, cached).thenApply(m -> new Result(m, cached[0]));
    }

    /** {@code cached}, when given, is set when the cache answered without an upstream. */
    private CompletionStage<Message> forward(Message query, boolean[] cached) {
        try {
            Record question = query.getQuestion();
            if (question == null) {
                return CompletableFuture.completedFuture(Responses.error(query, Rcode.FORMERR));
            }
            if (!loopProbes.isEmpty()) {
                UpstreamState looping = loopProbes.get(question.getName());
                if (looping != null) {
                    onLoopDetected(looping, question.getName());
                    return CompletableFuture.completedFuture(Responses.error(query, Rcode.SERVFAIL));
                }
            }
            CacheKey key = null;
            if (cache != null) {
                key = CacheKey.of(query);
                CachedResponse hit = cache.lookup(key);
                if (hit != null) {
                    if (cached != null) cached[0] = true;
                    return CompletableFuture.completedFuture(hit.render(query, cache.nowMillis()));
                }
            }
            if (inFlight.incrementAndGet() > settings.maxConcurrent()) {
                inFlight.decrementAndGet();
                maxConcurrentRejects.increment();
                return CompletableFuture.completedFuture(Responses.error(query, Rcode.REFUSED));
            }
            List<UpstreamState> order = routeFor(question.getName()).order(settings.policy());
            CompletableFuture<Message> result = new CompletableFuture<>();
            long deadline = System.nanoTime() + settings.totalTimeout().toNanos();
            attempt(query, key, order, 0, deadline, null, result);
            return result.whenComplete((m, e) -> inFlight.decrementAndGet());
        } catch (RuntimeException e) {
            LOG.warnf(e, "forwarding %s failed unexpectedly", query.getQuestion());
            return CompletableFuture.completedFuture(Responses.error(query, Rcode.SERVFAIL));
        }
    }

    private Route routeFor(Name name) {
        for (Route r : zoneRoutes) { // sorted most specific first
            if (name.subdomain(r.zone)) {
                return r;
            }
        }
        return defaultRoute;
    }

    private void attempt(Message query, CacheKey key, List<UpstreamState> order, int index, long deadline,
                         Message lastError, CompletableFuture<Message> result) {
        long remaining = deadline - System.nanoTime();
        if (index >= order.size() || remaining <= 0) {
            giveUp(query, key, lastError, result);
            return;
        }
        UpstreamState upstream = order.get(index);
        if (upstream.isLooping()) {
            attempt(query, key, order, index + 1, deadline, lastError, result);
            return;
        }
        Duration timeout = Duration.ofNanos(Math.min(settings.timeout().toNanos(), remaining));
        long start = System.nanoTime();
        upstream.requests.increment();
        exchange(upstream.upstream, query, timeout).whenComplete((response, error) -> {
            try {
                if (error != null) {
                    upstream.failure();
                    LOG.debugf("upstream %s failed for %s: %s", upstream.upstream, query.getQuestion(), error.toString());
                    attempt(query, key, order, index + 1, deadline, lastError, result);
                    return;
                }
                upstream.success();
                int rcode = response.getRcode();
                upstream.recordResponse(rcode, System.nanoTime() - start);
                if (rcode == Rcode.SERVFAIL || rcode == Rcode.REFUSED) {
                    attempt(query, key, order, index + 1, deadline, response, result);
                    return;
                }
                if (key != null) {
                    cache.put(key, response);
                }
                result.complete(Responses.toClient(response, query));
            } catch (RuntimeException e) {
                LOG.warnf(e, "handling the answer of %s for %s failed", upstream.upstream, query.getQuestion());
                result.complete(Responses.error(query, Rcode.SERVFAIL));
            }
        });
    }

    /** UDP first and TCP if truncated; TCP only when forced; TLS only to a tls:// upstream. */
    private CompletableFuture<Message> exchange(Upstream upstream, Message query, Duration timeout) {
        if (settings.forceTcp() || upstream.tls()) {
            return transport.tcp(upstream, query, timeout);
        }
        return transport.udp(upstream, query, timeout).thenCompose(response ->
                response.getHeader().getFlag(Flags.TC) ? transport.tcp(upstream, query, timeout)
                        : CompletableFuture.completedFuture(response));
    }

    private void giveUp(Message query, CacheKey key, Message lastError, CompletableFuture<Message> result) {
        if (key != null) {
            CachedResponse stale = cache.lookupStale(key);
            if (stale != null) {
                result.complete(stale.renderStale(query, cache.settings().staleTtl()));
                return;
            }
            if (lastError != null) {
                cache.put(key, lastError); // only a SERVFAIL is cacheable, for at most 5 s
            }
        }
        result.complete(lastError != null ? Responses.toClient(lastError, query) : Responses.error(query, Rcode.SERVFAIL));
    }

    // ---- health checks (CoreDNS: ". IN NS", only for upstreams that have failed) ----

    private void healthCheck() {
        for (UpstreamState s : allUpstreams) {
            if (s.hasFailures() && !s.isLooping() && s.probing.compareAndSet(false, true)) {
                Message probe = Message.newQuery(Record.newRecord(Name.root, Type.NS, DClass.IN));
                CompletableFuture<Message> exchange = settings.forceTcp() || s.upstream.tls()
                        ? transport.tcp(s.upstream, probe, settings.timeout())
                        : transport.udp(s.upstream, probe, settings.timeout());
                exchange.whenComplete((r, e) -> {
                    s.probing.set(false);
                    if (e == null) {
                        if (!s.isHealthy()) {
                            LOG.infof("upstream %s is answering again", s.upstream);
                        }
                        s.success();
                    } else {
                        s.failure();
                        s.healthcheckFailures.increment();
                        if (s.fails() == settings.maxFails()) {
                            LOG.warnf("upstream %s is down (%d consecutive failures)", s.upstream, s.fails());
                        }
                    }
                });
            }
        }
    }

    // ---- loop detection ----

    private void sendLoopProbes() {
        for (UpstreamState s : allUpstreams) {
            Name probeName;
            try {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                probeName = Name.fromString(Long.toUnsignedString(r.nextLong()) + "." + Long.toUnsignedString(r.nextLong()) + ".");
            } catch (TextParseException e) {
                throw new IllegalStateException(e);
            }
            loopProbes.put(probeName, s);
            sendLoopProbe(s, Message.newQuery(Record.newRecord(probeName, Type.HINFO, DClass.IN)), 1);
        }
    }

    private void sendLoopProbe(UpstreamState s, Message probe, int attempt) {
        CompletableFuture<Message> exchange = settings.forceTcp() || s.upstream.tls()
                ? transport.tcp(s.upstream, probe, settings.timeout())
                : transport.udp(s.upstream, probe, settings.timeout());
        exchange.whenComplete((r, e) -> {
            if (e != null && attempt < LOOP_PROBE_ATTEMPTS && !s.isLooping()) {
                vertx.setTimer(Math.max(1, settings.loopProbeDelay().toMillis()), t -> sendLoopProbe(s, probe, attempt + 1));
            }
        });
    }

    private void onLoopDetected(UpstreamState s, Name probe) {
        if (!s.isLooping()) {
            LOG.errorf("Loop detected: the probe %s sent to upstream %s came back to this server. Forwarding to %s "
                    + "is disabled (SERVFAIL instead); fix that server so it does not forward to meshdns.",
                    probe, s.upstream, s.upstream);
            s.markLooping();
            anyLooping = true;
        }
    }

    @Override
    public void close() {
        if (healthTimer >= 0) {
            vertx.cancelTimer(healthTimer);
        }
        if (loopTimer >= 0) {
            vertx.cancelTimer(loopTimer);
        }
        transport.close();
    }

    /** The upstreams serving a zone (null zone = default upstreams), with their round-robin counter. */
    private final class Route {
        final Name zone;
        final List<UpstreamState> upstreams;
        final AtomicLong tick = new AtomicLong();

        Route(Name zone, List<UpstreamState> upstreams) {
            this.zone = zone;
            this.upstreams = upstreams;
        }

        List<UpstreamState> order(ForwardPolicy policy) {
            List<UpstreamState> candidates = anyLooping
                    ? upstreams.stream().filter(s -> !s.isLooping()).toList()
                    : upstreams;
            return policy.order(candidates, tick.getAndIncrement(), ThreadLocalRandom.current()::nextInt,
                    UpstreamState::isHealthy);
        }
    }
}
