package io.meshdns.bench.discovery;

import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.locks.LockSupport;

/**
 * A UDP A-query client for one dns-service, encoding and decoding with dnsjava over a plain
 * DatagramSocket (no resolver machinery between the poll and the wire, so polling every millisecond
 * costs little). An answer is reduced to the sorted addresses, or {@code [RCODE]} when not NOERROR.
 */
final class DnsProbe implements AutoCloseable {
    private final DatagramSocket socket;
    private final InetSocketAddress server;
    private final byte[] buffer = new byte[4096];
    private int id;

    DnsProbe(int port) throws IOException {
        server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        socket.setSoTimeout(200);
    }

    static Name name(String fqdn) {
        try {
            return Name.fromString(fqdn);
        } catch (TextParseException e) {
            throw new IllegalArgumentException(fqdn, e);
        }
    }

    /** One query; {@code [TIMEOUT]} when no matching response came within 200 ms. */
    List<String> a(Name name) throws IOException {
        id = (id + 1) & 0xffff;
        Message q = Message.newQuery(Record.newRecord(name, Type.A, DClass.IN));
        q.getHeader().setID(id);
        byte[] wire = q.toWire();
        socket.send(new DatagramPacket(wire, wire.length, server));
        DatagramPacket p = new DatagramPacket(buffer, buffer.length);
        while (true) {
            try {
                socket.receive(p);
            } catch (SocketTimeoutException e) {
                return List.of("[TIMEOUT]");
            }
            Message m = new Message(java.util.Arrays.copyOf(p.getData(), p.getLength()));
            if (m.getHeader().getID() != id) continue; // a late answer to an earlier query
            if (m.getRcode() != Rcode.NOERROR) return List.of("[" + Rcode.string(m.getRcode()) + "]");
            TreeSet<String> out = new TreeSet<>();
            for (Record r : m.getSection(Section.ANSWER)) {
                if (r.getType() == Type.A) out.add(r.rdataToString());
            }
            return List.copyOf(out);
        }
    }

    /**
     * Queries every {@code pollNanos} until the answer equals {@code expected}; returns the nanoTime
     * the correct answer arrived, or -1 after {@code timeoutNanos}.
     */
    long await(Name name, List<String> expected, long pollNanos, long timeoutNanos) throws IOException {
        long start = System.nanoTime();
        long next = start;
        while (true) {
            List<String> got = a(name);
            long now = System.nanoTime();
            if (got.equals(expected)) return now;
            if (now - start > timeoutNanos) return -1;
            next += pollNanos;
            if (next > now) LockSupport.parkNanos(next - now);
            else next = now;
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
