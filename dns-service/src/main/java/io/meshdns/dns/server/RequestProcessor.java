package io.meshdns.dns.server;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.metrics.DnsMetrics;
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

import java.util.List;
import java.util.function.Consumer;

/**
 * Packet in, packet(s) out; shared by the UDP and TCP listeners. Drops what must not be answered
 * (shorter than a header, or a response: QR=1, which also stops reflection loops), answers
 * FORMERR with a bare 12-byte header to what does not parse (never larger than the query), then
 * dispatches on the opcode to a {@link RequestHandler} (none: NOTIMP), encodes within the client's
 * size limit, and records metrics and the optional query log.
 */
@ApplicationScoped
public class RequestProcessor {
    private static final Logger LOG = Logger.getLogger(RequestProcessor.class);
    private static final String NO_ZONE = ".";

    @Inject
    @Any
    Instance<RequestHandler> handlers;
    @Inject
    Instance<ZoneTransferHandler> transfers;
    @Inject
    DnsMetrics metrics;
    @Inject
    ServerConfig config;

    private final RequestHandler[] byOpcode = new RequestHandler[16];
    private ResponseEncoder encoder;
    private boolean queryLog;

    @PostConstruct
    void init() {
        ServerSettings settings = ServerSettings.from(config);
        encoder = new ResponseEncoder(settings.maxUdpPayload());
        queryLog = settings.queryLog();
        for (RequestHandler handler : handlers) {
            RequestHandler previous = byOpcode[handler.opcode()];
            if (previous != null) {
                throw new IllegalStateException("two handlers for opcode " + Opcode.string(handler.opcode()) + ": "
                        + previous.getClass().getName() + " and " + handler.getClass().getName());
            }
            byOpcode[handler.opcode()] = handler;
        }
    }

    /**
     * Handles one DNS message. {@code send} is called once per response message (zero times when
     * the packet is dropped, more than once only for a zone transfer over TCP), possibly later and
     * on another thread when the answer is forwarded.
     */
    public void process(byte[] packet, ClientInfo client, Consumer<byte[]> send) {
        long started = System.nanoTime();
        if (packet.length < Header.LENGTH || (packet[2] & 0x80) != 0) {
            metrics.malformed();
            return;
        }
        Message query;
        try {
            query = new Message(packet);
        } catch (Exception e) { // dnsjava throws WireParseException and, for some garbage, runtime exceptions
            metrics.malformed();
            byte[] formerr = formErr(packet);
            send.accept(formerr);
            metrics.request(NO_ZONE, client.transport().label(), client.ipv6(), 0, Rcode.FORMERR, System.nanoTime() - started);
            return;
        }
        int opcode = query.getHeader().getOpcode();
        RequestHandler handler = byOpcode[opcode];
        if (handler == null) {
            Message notImp = new Message(query.getHeader().getID());
            notImp.getHeader().setFlag(Flags.QR);
            notImp.getHeader().setOpcode(opcode);
            notImp.getHeader().setRcode(Rcode.NOTIMP);
            if (query.getQuestion() != null) {
                notImp.addRecord(query.getQuestion(), Section.QUESTION);
            }
            complete(query, packet.length, client, new RequestHandler.Reply(notImp, NO_ZONE), started, send);
            return;
        }
        Record question = query.getQuestion();
        if (client.transport() == Transport.TCP && opcode == Opcode.QUERY && question != null
                && (question.getType() == Type.AXFR || question.getType() == Type.IXFR) && transfers.isResolvable()) {
            transfers.get().transfer(query, packet, client).whenComplete((messages, error) -> {
                if (error != null || messages == null || messages.isEmpty()) {
                    LOG.warnf(error, "zone transfer for %s failed", question.getName());
                    complete(query, packet.length, client, servFail(query), started, send);
                    return;
                }
                for (Message m : messages) {
                    send.accept(m.toWire());
                }
            });
            return;
        }
        handler.handle(query, packet, client).whenComplete((reply, error) -> {
            if (error != null || reply == null) {
                LOG.errorf(error, "handler for opcode %s failed on %s", Opcode.string(opcode), question);
                reply = servFail(query);
            }
            complete(query, packet.length, client, reply, started, send);
        });
    }

    private void complete(Message query, int requestSize, ClientInfo client, RequestHandler.Reply reply, long started,
                          Consumer<byte[]> send) {
        byte[] wire;
        try {
            wire = encoder.encode(reply.response(), encoder.limitFor(query, client.transport()));
        } catch (RuntimeException e) {
            LOG.errorf(e, "cannot encode the response to %s", query.getQuestion());
            reply = servFail(query);
            wire = reply.response().toWire();
        }
        send.accept(wire);
        long nanos = System.nanoTime() - started;
        Record q = query.getQuestion();
        metrics.request(reply.zone(), client.transport().label(), client.ipv6(), q == null ? 0 : q.getType(),
                reply.response().getRcode(), nanos);
        if (queryLog) {
            QueryLog.log(client, query, requestSize, reply.response(), wire.length, nanos);
        }
    }

    private static RequestHandler.Reply servFail(Message query) {
        Message m = new Message(query.getHeader().getID());
        m.getHeader().setFlag(Flags.QR);
        m.getHeader().setRcode(Rcode.SERVFAIL);
        if (query.getQuestion() != null) {
            m.addRecord(query.getQuestion(), Section.QUESTION);
        }
        return new RequestHandler.Reply(m, NO_ZONE);
    }

    /** FORMERR as a bare header: the query's ID, opcode and RD, QR set, all counts zero. */
    static byte[] formErr(byte[] packet) {
        byte[] r = new byte[Header.LENGTH];
        r[0] = packet[0];
        r[1] = packet[1];
        r[2] = (byte) (0x80 | (packet[2] & 0x79)); // QR + opcode + RD
        r[3] = (byte) Rcode.FORMERR;
        return r;
    }

    List<Integer> handledOpcodes() {
        List<Integer> list = new java.util.ArrayList<>();
        for (int i = 0; i < byOpcode.length; i++) {
            if (byOpcode[i] != null) {
                list.add(i);
            }
        }
        return list;
    }
}
