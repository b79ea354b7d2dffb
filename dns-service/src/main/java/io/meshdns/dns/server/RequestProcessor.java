package io.meshdns.dns.server;

import io.meshdns.dns.base.ConfigValues;
import io.meshdns.dns.base.RateLimitedLog;
import io.meshdns.dns.tsig.TsigGate;
import io.meshdns.dns.tsig.TsigVerdict;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.QueryContext;
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

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Packet in, packet(s) out; shared by the UDP and TCP listeners, and the one place that says what a request goes
 * through after the listener's own steps (ACL, response-rate limit):
 * <ol>
 *   <li>UDP only: {@link UdpFastPath#answer}, the memo and the forwarder-cache replay, bytes in and bytes out;</li>
 *   <li>{@link RequestFate#decide}: parse, TSIG, replay cache, then which handler (dropped, FORMERR, a TSIG refusal,
 *       NOTIMP, a handler or a zone transfer), one outcome and never a throw;</li>
 *   <li>the handler ({@link RequestHandler}: answer or forward) or the zone transfer;</li>
 *   <li>{@link #complete}: encode within the client's size limit, send, let {@link UdpFastPath#remember} keep it,
 *       count it, log it.</li>
 * </ol>
 * It is also the one place that catches what a handler, a transfer or the encoding throws (SERVFAIL, counted,
 * logged at most once per 10 s), so no request escapes its reply.
 */
@ApplicationScoped
public class RequestProcessor {
    private static final Logger LOG = Logger.getLogger(RequestProcessor.class);
    static final String NO_ZONE = ".";
    /** The largest answer the fast path can write: a UDP datagram's payload limit. */
    public static final int MAX_FAST_ANSWER = UdpFastPath.MAX_ANSWER;

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
    /** Null when the query log is on (every query must then go through {@link #complete}) or the memo is off. */
    private UdpFastPath fastPath;

    @PostConstruct
    void init() {
        ServerSettings settings = ServerSettings.from(config);
        encoder = new ResponseEncoder(settings.maxUdpPayload());
        queryLog = settings.queryLog();
        int memoEntries = ConfigValues.parseInt(ServerConfig.UDP_ANSWER_MEMO, config.udp().answerMemoEntries(), 0,
                10_000_000);
        if (!queryLog && memoEntries > 0) {
            AnswerMemo memo = new AnswerMemo(memoEntries);
            metrics.answerMemo(memo, AnswerMemo::size, AnswerMemo::evictions);
            CacheReplay replay = forwarder.isResolvable() && forwarder.get().cache() != null
                    ? new CacheReplay(forwarder.get(), answerer.get(), encoder::udpLimit) : null;
            fastPath = new UdpFastPath(memo, replay, store, mesh, metrics);
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
     * The UDP fast path ({@link UdpFastPath}): the remembered answer to a plain query already answered from the
     * current snapshot, or for a name the snapshot forwards, the forwarder's fresh cached answer; null sends it down
     * {@link #process}. Counts the request in the metrics like the slow path does.
     */
    public byte[] fastAnswer(byte[] packet, boolean ipv6) {
        byte[] out = new byte[MAX_FAST_ANSWER];
        int length = fastAnswer(packet, packet.length, ipv6, out);
        return length < 0 ? null : Arrays.copyOf(out, length);
    }

    /**
     * {@link #fastAnswer(byte[], boolean)} for the query in the first {@code length} bytes of {@code packet}, with
     * the answer written into {@code out} (at least {@link #MAX_FAST_ANSWER} bytes): its length, or -1 for the slow
     * path. The UDP listener reuses both buffers.
     */
    public int fastAnswer(byte[] packet, int length, boolean ipv6, byte[] out) {
        return fastPath == null ? -1 : fastPath.answer(packet, length, ipv6, out);
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
        stageOf(() -> fate.handler().handle(ctx, packet)).whenComplete((reply, error) -> {
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
        stageOf(() -> fate.transfer().transfer(ctx, packet)).whenComplete((messages, error) -> {
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

    /** What {@code start} returns, or a failed stage when it threw instead: a handler's failure has one way out. */
    private static <T> CompletionStage<T> stageOf(java.util.function.Supplier<CompletionStage<T>> start) {
        try {
            return start.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
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
        if (fastPath != null) fastPath.remember(ctx, packet, wire, reply);
        long nanos = System.nanoTime() - started;
        Record q = query.getQuestion();
        metrics.request(reply.zone(), client.transport().label(), client.ipv6(), q == null ? 0 : q.getType(),
                reply.response().getRcode(), nanos, packet.length, wire.length, QueryBits.dnssecOk(packet));
        if (queryLog) {
            QueryLog.log(client, query, packet.length, reply.response(), wire.length, nanos);
        }
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
