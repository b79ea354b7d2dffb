package io.meshdns.dns.forward;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramPacket;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import org.jboss.logging.Logger;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

/**
 * Sends one query to one upstream over UDP or TCP, on Vert.x, without blocking an event loop.
 *
 * <p>Anti-spoofing: every upstream query gets a fresh random ID from a {@link SecureRandom} (the
 * client's ID is never reused upstream), leaves from one of several UDP sockets bound to random
 * ports, and a datagram is accepted only if its source address and port, its ID and its question
 * all match an outstanding query; anything else is ignored and the real answer is still awaited.
 *
 * <p>TCP (RFC 7766) opens one connection per query with 2-byte length framing; connection reuse is
 * left for later since TCP is only the fallback for truncated answers (or force-TCP).
 */
final class UpstreamTransport implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(UpstreamTransport.class);

    /** EDNS0 payload we advertise upstream (DNS flag day 2020). */
    static final int UPSTREAM_UDP_PAYLOAD = 1232;

    private final Vertx vertx;
    private final SecureRandom idRandom = new SecureRandom();
    private final List<UdpSlot> ipv4 = new ArrayList<>();
    private final List<UdpSlot> ipv6 = new ArrayList<>();
    private final NetClient tcp;
    private final int socketsPerFamily;

    UpstreamTransport(Vertx vertx, int socketsPerFamily, Duration connectTimeout) {
        this.vertx = vertx;
        this.socketsPerFamily = socketsPerFamily;
        this.tcp = vertx.createNetClient(new NetClientOptions()
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .setTcpNoDelay(true));
    }

    /** Binds the UDP sockets for the families in use. Call once from a non-event-loop thread at start. */
    void open(boolean needIpv4, boolean needIpv6) {
        try {
            for (int i = 0; needIpv4 && i < socketsPerFamily; i++) {
                ipv4.add(bind(false, "0.0.0.0"));
            }
            for (int i = 0; needIpv6 && i < socketsPerFamily; i++) {
                ipv6.add(bind(true, "::"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding upstream UDP sockets", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot bind upstream UDP sockets: " + e.getMessage(), e);
        }
    }

    private UdpSlot bind(boolean v6, String wildcard) throws InterruptedException, ExecutionException, TimeoutException {
        DatagramSocket socket = vertx.createDatagramSocket(new DatagramSocketOptions().setIpV6(v6));
        UdpSlot slot = new UdpSlot(socket);
        socket.handler(slot::onPacket);
        socket.listen(0, wildcard).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        return slot;
    }

    /** Wire form of the query we send upstream: the client's question and RD/CD, our ID and EDNS. */
    static byte[] upstreamQuery(Message clientQuery, int id) {
        Message q = new Message(id);
        q.getHeader().setOpcode(clientQuery.getHeader().getOpcode());
        if (clientQuery.getHeader().getFlag(Flags.RD)) {
            q.getHeader().setFlag(Flags.RD);
        }
        if (clientQuery.getHeader().getFlag(Flags.CD)) {
            q.getHeader().setFlag(Flags.CD);
        }
        q.addRecord(clientQuery.getQuestion(), Section.QUESTION);
        OPTRecord clientOpt = clientQuery.getOPT();
        int flags = clientOpt != null ? clientOpt.getFlags() & ExtendedFlags.DO : 0;
        q.addRecord(new OPTRecord(UPSTREAM_UDP_PAYLOAD, 0, 0, flags), Section.ADDITIONAL);
        return q.toWire();
    }

    /** One UDP exchange. Completes with the matching response, or exceptionally on timeout/I/O error. */
    CompletableFuture<Message> udp(Upstream upstream, Message clientQuery, Duration timeout) {
        List<UdpSlot> slots = upstream.isIpv6() ? ipv6 : ipv4;
        CompletableFuture<Message> result = new CompletableFuture<>();
        if (slots.isEmpty()) {
            result.completeExceptionally(new IOException("no UDP socket for " + upstream));
            return result;
        }
        UdpSlot slot = slots.get(ThreadLocalRandom.current().nextInt(slots.size()));
        Pending pending = new Pending(upstream, clientQuery.getQuestion(), result);
        int id;
        do {
            id = idRandom.nextInt(0x10000);
        } while (slot.pending.putIfAbsent(id, pending) != null);
        final int queryId = id;
        long timer = vertx.setTimer(timeout.toMillis(), t -> {
            if (slot.pending.remove(queryId, pending)) {
                result.completeExceptionally(new TimeoutException("no answer from " + upstream + " within " + timeout));
            }
        });
        pending.timerId = timer;
        slot.socket.send(Buffer.buffer(upstreamQuery(clientQuery, queryId)), upstream.port(), upstream.hostAddress())
                .onFailure(err -> {
                    if (slot.pending.remove(queryId, pending)) {
                        vertx.cancelTimer(timer);
                        result.completeExceptionally(err);
                    }
                });
        return result;
    }

    /** One TCP exchange on a fresh connection, with RFC 1035 §4.2.2 length framing. */
    CompletableFuture<Message> tcp(Upstream upstream, Message clientQuery, Duration timeout) {
        CompletableFuture<Message> result = new CompletableFuture<>();
        int id = idRandom.nextInt(0x10000);
        byte[] wire = upstreamQuery(clientQuery, id);
        Record question = clientQuery.getQuestion();
        NetSocket[] socketRef = new NetSocket[1];
        long timer = vertx.setTimer(timeout.toMillis(), t -> {
            if (result.completeExceptionally(new TimeoutException("no TCP answer from " + upstream + " within " + timeout))) {
                NetSocket s = socketRef[0];
                if (s != null) {
                    s.close();
                }
            }
        });
        tcp.connect(upstream.port(), upstream.hostAddress()).onComplete(ar -> {
            if (ar.failed()) {
                vertx.cancelTimer(timer);
                result.completeExceptionally(ar.cause());
                return;
            }
            NetSocket socket = ar.result();
            socketRef[0] = socket;
            if (result.isDone()) {
                socket.close();
                return;
            }
            Buffer received = Buffer.buffer();
            socket.handler(chunk -> {
                received.appendBuffer(chunk);
                if (received.length() < 2) {
                    return;
                }
                int length = received.getUnsignedShort(0);
                if (received.length() < 2 + length) {
                    return;
                }
                byte[] bytes = received.getBytes(2, 2 + length);
                socket.close();
                vertx.cancelTimer(timer);
                Message response = parseMatching(bytes, id, question);
                if (response == null) {
                    result.completeExceptionally(new IOException("mismatched TCP answer from " + upstream));
                } else {
                    result.complete(response);
                }
            });
            socket.exceptionHandler(err -> {
                vertx.cancelTimer(timer);
                result.completeExceptionally(err);
                socket.close();
            });
            socket.closeHandler(v -> {
                if (result.completeExceptionally(new IOException("connection to " + upstream + " closed"))) {
                    vertx.cancelTimer(timer);
                }
            });
            Buffer frame = Buffer.buffer(2 + wire.length).appendUnsignedShort(wire.length).appendBytes(wire);
            socket.write(frame);
        });
        return result;
    }

    /** The response if its ID and question match what we asked, else null. */
    static Message parseMatching(byte[] bytes, int id, Record question) {
        if (bytes.length < 12 || (((bytes[0] & 0xFF) << 8) | (bytes[1] & 0xFF)) != id) {
            return null;
        }
        Message response;
        try {
            response = new Message(bytes);
        } catch (IOException e) {
            return null;
        }
        Record q = response.getQuestion();
        if (!response.getHeader().getFlag(Flags.QR) || q == null || q.getType() != question.getType()
                || q.getDClass() != question.getDClass() || !q.getName().equals(question.getName())) {
            return null;
        }
        return response;
    }

    @Override
    public void close() {
        for (UdpSlot slot : ipv4) {
            slot.socket.close();
        }
        for (UdpSlot slot : ipv6) {
            slot.socket.close();
        }
        tcp.close();
    }

    private static final class Pending {
        final Upstream upstream;
        final Record question;
        final CompletableFuture<Message> result;
        volatile long timerId;

        Pending(Upstream upstream, Record question, CompletableFuture<Message> result) {
            this.upstream = upstream;
            this.question = question;
            this.result = result;
        }
    }

    private final class UdpSlot {
        final DatagramSocket socket;
        final ConcurrentHashMap<Integer, Pending> pending = new ConcurrentHashMap<>();

        UdpSlot(DatagramSocket socket) {
            this.socket = socket;
        }

        void onPacket(DatagramPacket packet) {
            Buffer data = packet.data();
            if (data.length() < 12) {
                return;
            }
            int id = data.getUnsignedShort(0);
            Pending p = pending.get(id);
            if (p == null || packet.sender().port() != p.upstream.port()
                    || !p.upstream.hostAddress().equals(packet.sender().hostAddress())) {
                LOG.debugf("ignoring unexpected datagram from %s (id %d)", packet.sender(), id);
                return;
            }
            Message response = parseMatching(data.getBytes(), id, p.question);
            if (response == null) {
                LOG.debugf("ignoring datagram from %s with mismatched question", packet.sender());
                return; // keep waiting: the genuine answer may still come
            }
            if (pending.remove(id, p)) {
                vertx.cancelTimer(p.timerId);
                p.result.complete(response);
            }
        }
    }
}
