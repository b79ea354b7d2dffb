package io.meshdns.dns.server;

import io.meshdns.dns.base.ConfigValues;
import io.meshdns.dns.base.RateLimitedLog;
import io.meshdns.dns.tsig.TsigGate;
import io.meshdns.dns.tsig.TsigVerdict;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.QueryContext;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.cache.CacheKey;
import io.meshdns.dns.fastpath.AnswerMemo;
import io.meshdns.dns.fastpath.CacheReplay;
import io.meshdns.dns.forward.UpstreamForwarder;
import io.meshdns.dns.kubernetes.MeshNaming;
import io.meshdns.dns.metrics.DnsMetrics;
import io.meshdns.dns.metrics.QueryBits;
import io.meshdns.dns.snapshot.SnapshotStore;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Header;
import org.xbill.DNS.Message;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Packet in, packet(s) out; shared by the UDP and TCP listeners. {@link RequestFate#decide} decides what becomes of
 * a request (dropped, FORMERR, a TSIG refusal, NOTIMP, a handler or a zone transfer); this class carries that out,
 * encodes within the client's size limit, records metrics and the optional query log, and is the one place that
 * catches what a handler, a transfer or the encoding throws (SERVFAIL, counted, logged at most once per 10 s).
 * It is over 400 lines because it also holds the UDP fast path ({@link #fastAnswer}), which must count its answers
 * in the same meters and fill the same memo as the slow path.
 */
@ApplicationScoped
public class RequestProcessor {
    private static final Logger LOG = Logger.getLogger(RequestProcessor.class);
    private static final String NO_ZONE = ".";
    /** The largest answer the fast path can write: a UDP datagram's payload limit. */
    public static final int MAX_FAST_ANSWER = 65_535;

    @Inject
    @Any
    Instance<RequestHandler> handlers;
    @Inject
    Instance<ZoneTransferHandler> transfers;
    @Inject
    DnsMetrics metrics;
    @Inject
    ServerConfig config;
    @Inject
    SnapshotStore store;
    @Inject
    MeshNaming mesh;
    @Inject
    Instance<UpstreamForwarder> forwarder;
    @Inject
    AnswererHolder answerer;
    @Inject
    Instance<TsigGate> tsig;

    private final RequestHandler[] byOpcode = new RequestHandler[16];
    private RequestFate.Routes routes;
    private final RateLimitedLog failureLog = new RateLimitedLog(LOG, java.time.Duration.ofSeconds(10));
    private ResponseEncoder encoder;
    private boolean queryLog;
    /** Null when the query log is on: every query must then go through {@link #complete}. */
    private AnswerMemo memo;
    /** Null without the memo or without a forwarder cache: forwarded names then always take the slow path. */
    private CacheReplay replay;

    @PostConstruct
    void init() {
        ServerSettings settings = ServerSettings.from(config);
        encoder = new ResponseEncoder(settings.maxUdpPayload());
        queryLog = settings.queryLog();
        int memoEntries = ConfigValues.parseInt(ServerConfig.UDP_ANSWER_MEMO, config.udp().answerMemoEntries(), 0,
                10_000_000);
        memo = queryLog || memoEntries == 0 ? null : new AnswerMemo(memoEntries);
        if (memo != null) {
            metrics.answerMemo(memo, AnswerMemo::size, AnswerMemo::evictions);
        }
        if (memo != null && forwarder.isResolvable() && forwarder.get().cache() != null) {
            replay = new CacheReplay(forwarder.get(), answerer.get(), encoder::udpLimit);
        }
        for (RequestHandler handler : handlers) {
            RequestHandler previous = byOpcode[handler.opcode()];
            if (previous != null) {
                throw new IllegalStateException("two handlers for opcode " + Opcode.string(handler.opcode()) + ": "
                        + previous.getClass().getName() + " and " + handler.getClass().getName());
            }
            byOpcode[handler.opcode()] = handler;
        }
        routes = new RequestFate.Routes(byOpcode, transfers.isResolvable() ? transfers.get() : null,
                tsig.isResolvable() ? tsig.get() : null);
    }

    /** Creates this bean and what it resolves at init (see DnsServer.onStart); the call itself does nothing. */
    public void prepare() {
        // intentionally empty: invoking a method on the client proxy is what instantiates the bean
    }

    /**
     * The UDP fast path: the remembered answer to a plain query already answered from the current
     * snapshot (see {@link AnswerMemo}), ID and question case patched, or, for a name the snapshot
     * forwards, the forwarder's fresh cached answer (see {@link CacheReplay}); null sends it down
     * {@link #process}. Counts the request in the metrics like the slow path does.
     */
    public byte[] fastAnswer(byte[] packet, boolean ipv6) {
        byte[] out = new byte[MAX_FAST_ANSWER];
        int length = fastAnswer(packet, packet.length, ipv6, out);
        return length < 0 ? null : Arrays.copyOf(out, length);
    }

    /**
     * {@link #fastAnswer(byte[], boolean)} for the query in the first {@code length} bytes of {@code packet},
     * with the answer written into {@code out} (at least {@link #MAX_FAST_ANSWER} bytes) from offset 0:
     * returns its length, or -1 for the slow path. The UDP listener reuses both buffers, so a remembered
     * authoritative answer costs no allocation here (a forwarded one still copies the query once).
     */
    public int fastAnswer(byte[] packet, int length, boolean ipv6, byte[] out) {
        if (memo == null) {
            return -1;
        }
        long started = System.nanoTime();
        Snapshot snapshot = store.current();
        AnswerMemo.Entry e = memo.find(snapshot, packet, length);
        if (e == null) {
            return -1;
        }
        int answerLength;
        if (e.forwarded() == null) {
            answerLength = e.answerInto(packet, out);
        } else {
            byte[] query = Arrays.copyOf(packet, length);
            byte[] response = replay == null ? null
                    : replay.answer(new AnswerMemo.Hit(null, e, e.questionEnd()), query, snapshot.mesh());
            if (response == null || response.length > out.length) {
                return -1;
            }
            System.arraycopy(response, 0, out, 0, response.length);
            answerLength = response.length;
            int rcode = response[3] & 0x0F; // the cache's answer now, which may differ from the remembered one
            if (rcode != e.rcode()) {
                metrics.request(NO_ZONE, Transport.UDP.label(), ipv6, e.qtype(), rcode, System.nanoTime() - started,
                        length, answerLength, QueryBits.dnssecOk(query));
                return answerLength;
            }
        }
        DnsMetrics.Meters meters = (DnsMetrics.Meters) e.meters(ipv6);
        if (meters == null) {
            meters = metrics.meters(e.zone(), Transport.UDP.label(), ipv6, e.qtype(), e.rcode());
            e.meters(ipv6, meters);
        }
        meters.record(System.nanoTime() - started, length, answerLength, QueryBits.dnssecOk(packet, length));
        return answerLength;
    }

    /**
     * Handles one DNS message. {@code send} is called once per response message (zero times when
     * the packet is dropped, more than once only for a zone transfer over TCP), possibly later and
     * on another thread when the answer is forwarded.
     */
    public void process(byte[] packet, ClientInfo client, Consumer<byte[]> send) {
        process(packet, client, send, null, null);
    }

    /**
     * Like {@link #process(byte[], ClientInfo, Consumer)}; {@code replied}, when given, also receives the reply
     * the wire answer was encoded from (its zone and the rule that produced it), for operator tooling.
     */
    public void process(byte[] packet, ClientInfo client, Consumer<byte[]> send, Consumer<RequestHandler.Reply> replied) {
        process(packet, client, send, replied, null);
    }

    /**
     * Like {@link #process(byte[], ClientInfo, Consumer, Consumer)}; {@code done}, when given, runs exactly once per
     * request, after its last {@code send} or when it is dropped, whatever was thrown on the way (the TCP listener
     * counts the request in flight until then). Never throws: what a step throws is answered FORMERR or SERVFAIL,
     * counted ({@code meshdns_dns_request_failures_total{stage}}) and logged at most once per 10 s.
     */
    public void process(byte[] packet, ClientInfo client, Consumer<byte[]> send, Consumer<RequestHandler.Reply> replied,
                        Runnable done) {
        long started = System.nanoTime();
        Exchange exchange = new Exchange(send, done);
        RequestFate fate;
        try {
            // Read once: the whole request is answered from this snapshot and the mesh index it carries.
            fate = RequestFate.decide(packet, client, store.current(), routes);
        } catch (RuntimeException e) {
            failed("decide", client, e);
            if (packet.length >= Header.LENGTH) exchange.send(RequestFate.formErr(packet));
            exchange.finish();
            return;
        }
        if (fate instanceof RequestFate.Handled handled) {
            handle(handled, packet, started, exchange, replied);
        } else if (fate instanceof RequestFate.Transferred transferred) {
            transfer(transferred, packet, started, exchange, replied);
        } else {
            try {
                if (fate instanceof RequestFate.Answered answered) {
                    if (answered.malformed()) metrics.malformed();
                    countTsig(answered.ctx());
                    complete(answered.ctx(), packet, answered.reply(), started, exchange, replied);
                } else if (fate instanceof RequestFate.Unparsed unparsed) {
                    metrics.malformed();
                    exchange.send(unparsed.formerr());
                    metrics.request(NO_ZONE, client.transport().label(), client.ipv6(), 0, Rcode.FORMERR,
                            System.nanoTime() - started, packet.length, unparsed.formerr().length, false);
                } else {
                    metrics.malformed(); // dropped: too short, or a response
                }
            } catch (RuntimeException e) {
                failed("encode", client, e);
                if (packet.length >= Header.LENGTH) exchange.send(RequestFate.formErr(packet));
            } finally {
                exchange.finish();
            }
        }
    }

    private void handle(RequestFate.Handled fate, byte[] packet, long started, Exchange exchange,
                        Consumer<RequestHandler.Reply> replied) {
        QueryContext ctx = fate.ctx();
        countTsig(ctx);
        CompletionStage<RequestHandler.Reply> stage;
        try {
            stage = fate.handler().handle(ctx, packet);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((reply, error) -> {
            try {
                if (error != null || reply == null) {
                    failed("handler", ctx.client(), error);
                    metrics.panic();
                    reply = servFail(ctx.query());
                }
                complete(ctx, packet, reply, started, exchange, replied);
            } catch (RuntimeException e) {
                failed("encode", ctx.client(), e);
                exchange.sendIfNothingSent(servFail(ctx.query()).response());
            } finally {
                exchange.finish();
            }
        });
    }

    private void transfer(RequestFate.Transferred fate, byte[] packet, long started, Exchange exchange,
                          Consumer<RequestHandler.Reply> replied) {
        QueryContext ctx = fate.ctx();
        countTsig(ctx);
        CompletionStage<List<Message>> stage;
        try {
            stage = fate.transfer().transfer(ctx, packet);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((messages, error) -> {
            try {
                if (error != null || messages == null || messages.isEmpty()) {
                    failed("transfer", ctx.client(), error);
                    metrics.panic();
                    complete(ctx, packet, servFail(ctx.query()), started, exchange, replied);
                    return;
                }
                for (Message m : messages) {
                    exchange.send(m.toWire());
                }
            } catch (RuntimeException e) {
                failed("transfer", ctx.client(), e);
                exchange.sendIfNothingSent(servFail(ctx.query()).response());
            } finally {
                exchange.finish();
            }
        });
    }

    private void countTsig(QueryContext ctx) {
        if (!(ctx.tsig() instanceof TsigVerdict.Unsigned)) {
            metrics.tsig(ctx.tsig().label());
        }
    }

    private void failed(String stage, ClientInfo client, Throwable error) {
        metrics.requestFailure(stage);
        failureLog.warn("a request from " + client.address() + " failed in the " + stage + " step and was answered "
                + ("decide".equals(stage) ? "FORMERR" : "SERVFAIL"), error);
    }

    /** One request's replies and its end: {@code done} runs once, however many paths reach it. */
    private static final class Exchange {
        private final Consumer<byte[]> send;
        private final Runnable done;
        private final AtomicBoolean finished = new AtomicBoolean();
        private volatile boolean sent;

        Exchange(Consumer<byte[]> send, Runnable done) {
            this.send = send;
            this.done = done;
        }

        void send(byte[] wire) {
            sent = true;
            send.accept(wire);
        }

        void sendIfNothingSent(Message response) {
            if (!sent) {
                send(response.toWire());
            }
        }

        void finish() {
            if (finished.compareAndSet(false, true) && done != null) {
                done.run();
            }
        }
    }

    private void complete(QueryContext ctx, byte[] packet, RequestHandler.Reply reply, long started, Exchange exchange,
                          Consumer<RequestHandler.Reply> replied) {
        Message query = ctx.query();
        ClientInfo client = ctx.client();
        byte[] wire;
        try {
            wire = encoder.encode(reply.response(), encoder.limitFor(query, client.transport()));
        } catch (RuntimeException e) {
            LOG.errorf(e, "cannot encode the response to %s", query.getQuestion());
            metrics.panic();
            reply = servFail(query);
            wire = reply.response().toWire();
        }
        exchange.send(wire);
        if (replied != null) replied.accept(reply);
        // The memo keeps answers per snapshot (an answer from a replaced one is dropped there) and only those that
        // depend on nothing but the query bytes and the snapshot: a name whose exportTo makes the answer depend on
        // the client's namespace is never remembered, so a hit can never show one client another's answer.
        if (memo != null && client.transport() == Transport.UDP && clientIndependent(ctx)) {
            Snapshot snapshot = ctx.snapshot();
            Record question = query.getQuestion();
            if (reply.forwarded()) {
                if (replay != null && question != null && query.getHeader().getOpcode() == Opcode.QUERY) {
                    memo.rememberForwarded(snapshot, packet, new AnswerMemo.Forwarded(CacheKey.of(query), snapshot.mesh()),
                            reply.response().getRcode(), question.getType());
                }
            } else if (replayable(query, reply)) {
                memo.remember(snapshot, packet, wire, reply.zone(), reply.response().getRcode(), question.getType());
            }
        }
        long nanos = System.nanoTime() - started;
        Record q = query.getQuestion();
        metrics.request(reply.zone(), client.transport().label(), client.ipv6(), q == null ? 0 : q.getType(),
                reply.response().getRcode(), nanos, packet.length, wire.length, QueryBits.dnssecOk(packet));
        if (queryLog) {
            QueryLog.log(client, query, packet.length, reply.response(), wire.length, nanos);
        }
    }

    /** False when the answer may differ per client namespace (the name is exported to only some namespaces). */
    private static boolean clientIndependent(QueryContext ctx) {
        Record question = ctx.query().getQuestion();
        return question == null || ctx.mesh().exportScopeOf(question.getName()) == null;
    }

    /**
     * An answer the fast path may replay for the same query bytes: a QUERY answered from one of our
     * zones (not forwarded: that is labelled ".", like hosts data) that the mesh hook leaves alone,
     * and with no RRset of several records (dnsjava rotates those on every answer).
     */
    private boolean replayable(Message query, RequestHandler.Reply reply) {
        if (query.getHeader().getOpcode() != Opcode.QUERY || NO_ZONE.equals(reply.zone())
                || mesh.hook().mayAdjust(reply.zone())) {
            return false;
        }
        Message response = reply.response();
        for (int section : new int[] {Section.ANSWER, Section.AUTHORITY, Section.ADDITIONAL}) {
            List<Record> records = response.getSection(section);
            if (records.size() < 2) {
                continue;
            }
            Set<String> rrsets = new HashSet<>();
            for (Record r : records) {
                if (!rrsets.add(r.getName().toString().toLowerCase(java.util.Locale.ROOT) + "/" + r.getType())) {
                    return false;
                }
            }
        }
        return true;
    }

    private static RequestHandler.Reply servFail(Message query) {
        Message m = new Message(query.getHeader().getID());
        m.getHeader().setFlag(Flags.QR);
        m.getHeader().setOpcode(query.getHeader().getOpcode());
        m.getHeader().setRcode(Rcode.SERVFAIL);
        if (query.getQuestion() != null) {
            m.addRecord(query.getQuestion(), Section.QUESTION);
        }
        return new RequestHandler.Reply(m, NO_ZONE);
    }

}
