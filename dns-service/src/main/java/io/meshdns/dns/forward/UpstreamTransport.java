package io.meshdns.dns.forward;

import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.xbill.DNS.DNSInput;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

/**
 * Sends one query to one upstream over UDP or TCP, on Vert.x, without blocking an event loop.
 *
 * <p>Anti-spoofing (RFC 5452): every upstream query gets a fresh random ID from a {@link SecureRandom}
 * (the client's ID is never reused upstream) and <b>its own UDP socket</b> on a port the kernel picks at
 * random, closed once the query is done, so each query has a new source port and a forged answer must
 * guess about 16 + 15 bits. A few sockets per family are kept bound ahead of need
 * ({@code meshdns.dns.forward.udp-sockets}) so the bind is off the query's path. A datagram is accepted
 * only if its source address and port, its ID and its question all match; anything else is ignored and
 * the real answer is still awaited. With {@code case-randomization} (0x20) the question's letters are
 * sent in random case and the answer must echo them exactly; an answer that matches in everything but
 * case (an upstream that does not preserve case) makes the query be asked again, once, in the client's
 * own case, from a fresh socket and ID.
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
    private final Spares ipv4 = new Spares(false, "0.0.0.0");
    private final Spares ipv6 = new Spares(true, "::");
    private final NetClient tcp;
    private final int sparesPerFamily;
    private final boolean caseRandomization;
    private volatile boolean closed;

    UpstreamTransport(Vertx vertx, int sparesPerFamily, Duration connectTimeout) {
        this(vertx, sparesPerFamily, connectTimeout, false);
    }

    UpstreamTransport(Vertx vertx, int sparesPerFamily, Duration connectTimeout, boolean caseRandomization) {
        this.vertx = vertx;
        this.sparesPerFamily = sparesPerFamily;
        this.caseRandomization = caseRandomization;
        this.tcp = vertx.createNetClient(new NetClientOptions()
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .setTcpNoDelay(true));
    }

    /** Binds the spare UDP sockets for the families in use. Call once from a non-event-loop thread at start. */
    void open(boolean needIpv4, boolean needIpv6) {
        try {
            if (needIpv4) {
                ipv4.enable();
            }
            if (needIpv6) {
                ipv6.enable();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding upstream UDP sockets", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot bind upstream UDP sockets: " + e.getMessage(), e);
        }
    }

    /** Wire form of the query we send upstream: the client's question and RD/CD, our ID and EDNS. */
    static byte[] upstreamQuery(Message clientQuery, int id) {
        return upstreamQuery(clientQuery, clientQuery.getQuestion(), id);
    }

    static byte[] upstreamQuery(Message clientQuery, Record question, int id) {
        Message q = new Message(id);
        q.getHeader().setOpcode(clientQuery.getHeader().getOpcode());
        if (clientQuery.getHeader().getFlag(Flags.RD)) {
            q.getHeader().setFlag(Flags.RD);
        }
        if (clientQuery.getHeader().getFlag(Flags.CD)) {
            q.getHeader().setFlag(Flags.CD);
        }
        q.addRecord(question, Section.QUESTION);
        OPTRecord clientOpt = clientQuery.getOPT();
        int flags = clientOpt != null ? clientOpt.getFlags() & ExtendedFlags.DO : 0;
        q.addRecord(new OPTRecord(UPSTREAM_UDP_PAYLOAD, 0, 0, flags), Section.ADDITIONAL);
        return q.toWire();
    }

    /** {@code name} with each ASCII letter's case chosen at random (0x20); the same name when it has no letters. */
    Name randomCase(Name name) {
        byte[] wire = name.toWire();
        long bits = idRandom.nextLong();
        int used = 0;
        int i = 0;
        while (i < wire.length && wire[i] != 0) {
            int len = wire[i] & 0xFF;
            for (int j = i + 1; j <= i + len; j++) {
                byte b = wire[j];
                if ((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')) {
                    if (used == 64) {
                        bits = idRandom.nextLong();
                        used = 0;
                    }
                    wire[j] = (byte) (((bits >>> used++) & 1) == 0 ? (b | 0x20) : (b & ~0x20));
                }
            }
            i += len + 1;
        }
        try {
            return new Name(new DNSInput(wire));
        } catch (IOException e) {
            return name;
        }
    }

    /** One UDP exchange. Completes with the matching response, or exceptionally on timeout/I/O error. */
    CompletableFuture<Message> udp(Upstream upstream, Message clientQuery, Duration timeout) {
        Record question = clientQuery.getQuestion();
        if (!caseRandomization) {
            return udpOnce(upstream, clientQuery, question, timeout);
        }
        Name mixed = randomCase(question.getName());
        if (mixed.toString().equals(question.getName().toString())) {
            return udpOnce(upstream, clientQuery, question, timeout);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Record sent = Record.newRecord(mixed, question.getType(), question.getDClass());
        return udpOnce(upstream, clientQuery, sent, timeout).handle((response, error) -> {
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause instanceof CaseMismatch) {
                long left = deadline - System.nanoTime();
                LOG.debugf("upstream %s did not echo the 0x20 case of %s; asking again without it", upstream, question.getName());
                if (left <= 0) {
                    return CompletableFuture.<Message>failedFuture(new TimeoutException("no answer from " + upstream + " within " + timeout));
                }
                return udpOnce(upstream, clientQuery, question, Duration.ofNanos(left));
            }
            if (error != null) {
                return CompletableFuture.<Message>failedFuture(cause);
            }
            restoreCase(response, mixed, question);
            return CompletableFuture.completedFuture(response);
        }).thenCompose(f -> f);
    }

    /** The answer in the client's case: the question, and every record owned by the exact 0x20 name. */
    static void restoreCase(Message response, Name sent, Record question) {
        String sentText = sent.toString();
        List<Record> answers = response.getSection(Section.ANSWER);
        response.removeAllRecords(Section.QUESTION);
        response.addRecord(question, Section.QUESTION);
        if (answers.stream().noneMatch(r -> r.getName().toString().equals(sentText))) {
            return;
        }
        response.removeAllRecords(Section.ANSWER);
        for (Record r : answers) {
            response.addRecord(r.getName().toString().equals(sentText) ? r.withName(question.getName()) : r, Section.ANSWER);
        }
    }

    private CompletableFuture<Message> udpOnce(Upstream upstream, Message clientQuery, Record question, Duration timeout) {
        Spares spares = upstream.isIpv6() ? ipv6 : ipv4;
        CompletableFuture<Message> result = new CompletableFuture<>();
        if (!spares.enabled || closed) {
            result.completeExceptionally(new IOException("no UDP socket for " + upstream));
            return result;
        }
        Ephemeral socket = spares.poll();
        if (socket != null) {
            send(socket, upstream, clientQuery, question, timeout, result);
        } else {
            spares.bind().onComplete(ar -> {
                if (ar.failed()) {
                    result.completeExceptionally(ar.cause());
                } else {
                    send(ar.result(), upstream, clientQuery, question, timeout, result);
                }
            });
        }
        spares.refill();
        return result;
    }

    private void send(Ephemeral socket, Upstream upstream, Message clientQuery, Record question, Duration timeout,
                      CompletableFuture<Message> result) {
        int id = idRandom.nextInt(0x10000);
        Pending pending = new Pending(upstream, question, id, result);
        socket.pending = pending;
        pending.timerId = vertx.setTimer(Math.max(1, timeout.toMillis()), t -> {
            if (socket.finish()) {
                result.completeExceptionally(new TimeoutException("no answer from " + upstream + " within " + timeout));
            }
        });
        socket.socket.send(Buffer.buffer(upstreamQuery(clientQuery, question, id)), upstream.port(), upstream.hostAddress())
                .onFailure(err -> {
                    if (socket.finish()) {
                        result.completeExceptionally(err);
                    }
                });
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
        closed = true;
        ipv4.close();
        ipv6.close();
        tcp.close();
    }

    /** An answer that matched in everything but the letter case of the 0x20 question. */
    static final class CaseMismatch extends IOException {
        CaseMismatch(String message) {
            super(message);
        }
    }

    private static final class Pending {
        final Upstream upstream;
        final Record question;
        final int id;
        final CompletableFuture<Message> result;
        volatile long timerId;

        Pending(Upstream upstream, Record question, int id, CompletableFuture<Message> result) {
            this.upstream = upstream;
            this.question = question;
            this.id = id;
            this.result = result;
        }
    }

    /** The spare sockets of one address family; each socket serves one query and is then closed. */
    private final class Spares {
        final boolean v6;
        final String wildcard;
        final ConcurrentLinkedQueue<Ephemeral> queue = new ConcurrentLinkedQueue<>();
        final AtomicInteger available = new AtomicInteger();
        final AtomicInteger binding = new AtomicInteger();
        volatile boolean enabled;

        Spares(boolean v6, String wildcard) {
            this.v6 = v6;
            this.wildcard = wildcard;
        }

        void enable() throws InterruptedException, ExecutionException, TimeoutException {
            enabled = true;
            for (int i = 0; i < sparesPerFamily; i++) {
                offer(bind().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
            }
        }

        Ephemeral poll() {
            Ephemeral e = queue.poll();
            if (e != null) {
                available.decrementAndGet();
            }
            return e;
        }

        private void offer(Ephemeral e) {
            if (closed) {
                e.socket.close();
                return;
            }
            queue.offer(e);
            available.incrementAndGet();
        }

        /** Binds replacements in the background until the spares are back to their number. */
        void refill() {
            while (!closed && available.get() + binding.get() < sparesPerFamily) {
                binding.incrementAndGet();
                bind().onComplete(ar -> {
                    binding.decrementAndGet();
                    if (ar.succeeded()) {
                        offer(ar.result());
                    } else {
                        LOG.warnf("cannot bind a spare upstream UDP socket: %s", ar.cause().getMessage());
                    }
                });
            }
        }

        io.vertx.core.Future<Ephemeral> bind() {
            DatagramSocket socket = vertx.createDatagramSocket(new DatagramSocketOptions().setIpV6(v6));
            Ephemeral e = new Ephemeral(socket);
            socket.handler(e::onPacket);
            return socket.listen(0, wildcard).map(s -> e);
        }

        void close() {
            Ephemeral e;
            while ((e = queue.poll()) != null) {
                e.socket.close();
            }
        }
    }

    /** One bound socket carrying at most one query; closed when that query is answered, times out or fails. */
    private final class Ephemeral {
        final DatagramSocket socket;
        final java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        volatile Pending pending;

        Ephemeral(DatagramSocket socket) {
            this.socket = socket;
        }

        /** True for the first caller only: cancels the timer and closes the socket. */
        boolean finish() {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            Pending p = pending;
            if (p != null) {
                vertx.cancelTimer(p.timerId);
            }
            socket.close();
            return true;
        }

        void onPacket(DatagramPacket packet) {
            Pending p = pending;
            Buffer data = packet.data();
            if (p == null || data.length() < 12) {
                return;
            }
            int id = data.getUnsignedShort(0);
            if (id != p.id || packet.sender().port() != p.upstream.port()
                    || !p.upstream.hostAddress().equals(packet.sender().hostAddress())) {
                LOG.debugf("ignoring unexpected datagram from %s (id %d)", packet.sender(), id);
                return;
            }
            Message response = parseMatching(data.getBytes(), id, p.question);
            if (response == null) {
                LOG.debugf("ignoring datagram from %s with mismatched question", packet.sender());
                return; // keep waiting: the genuine answer may still come
            }
            if (!response.getQuestion().getName().toString().equals(p.question.getName().toString())) {
                if (finish()) {
                    p.result.completeExceptionally(new CaseMismatch("answer from " + p.upstream + " lost the question's case"));
                }
                return;
            }
            if (finish()) {
                p.result.complete(response);
            }
        }
    }
}
