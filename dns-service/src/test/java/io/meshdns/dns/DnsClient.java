package io.meshdns.dns;

import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;

/** Test clients for a dns-service on 127.0.0.1: dnsjava's SimpleResolver and raw UDP. */
public final class DnsClient {
    private final int port;

    public DnsClient(int port) {
        this.port = port;
    }

    public Message udp(String name, int type) throws IOException {
        return send(query(name, type, DClass.IN), false);
    }

    public Message tcp(String name, int type) throws IOException {
        return send(query(name, type, DClass.IN), true);
    }

    public static Message query(String name, int type, int dclass) throws IOException {
        return Message.newQuery(Record.newRecord(Name.fromString(name, Name.root), type, dclass));
    }

    /** {@code name} with each letter's case chosen at random, as a DNS 0x20 client sends it. */
    public static String mixCase(String name, java.util.SplittableRandom random) {
        StringBuilder b = new StringBuilder(name.length());
        for (char c : name.toCharArray()) {
            b.append(random.nextBoolean() ? Character.toUpperCase(c) : c);
        }
        return b.toString();
    }

    public static Message withEdns(Message query, int payload, int version) {
        query.addRecord(new OPTRecord(payload, 0, version, 0), Section.ADDITIONAL);
        return query;
    }

    /** Sends through SimpleResolver; truncated UDP answers are returned as they are, not retried. */
    public Message send(Message query, boolean tcp) throws IOException {
        SimpleResolver resolver = new SimpleResolver(InetAddress.getByName("127.0.0.1"));
        resolver.setPort(port);
        resolver.setTCP(tcp);
        resolver.setIgnoreTruncation(true);
        resolver.setEDNS(-1); // dnsjava adds OPT by default; the tests decide per query
        resolver.setTimeout(Duration.ofSeconds(10)); // generous: CI machines are shared
        return resolver.send(query);
    }

    /**
     * Sends each message over one TCP connection with RFC 7766 framing, all written before any
     * reply is read (pipelining), and returns the replies in arrival order.
     */
    public List<Message> tcpPipelined(List<Message> queries) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            for (Message q : queries) {
                byte[] wire = q.toWire();
                out.writeShort(wire.length);
                out.write(wire);
            }
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            List<Message> replies = new ArrayList<>();
            for (int i = 0; i < queries.size(); i++) {
                byte[] reply = new byte[in.readUnsignedShort()];
                in.readFully(reply);
                replies.add(new Message(reply));
            }
            return replies;
        }
    }

    /** Sends raw bytes over UDP; returns the raw reply, or null when none came within the timeout. */
    public byte[] rawUdp(byte[] packet, Duration timeout) throws IOException {
        return rawUdpFrom(null, packet, timeout);
    }

    public byte[] rawUdpFrom(String localAddress, byte[] packet, Duration timeout) throws IOException {
        try (DatagramSocket socket = localAddress == null ? new DatagramSocket()
                : new DatagramSocket(new InetSocketAddress(localAddress, 0))) {
            socket.setSoTimeout((int) timeout.toMillis());
            socket.send(new DatagramPacket(packet, packet.length, InetAddress.getByName("127.0.0.1"), port));
            byte[] buffer = new byte[65535];
            DatagramPacket reply = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(reply);
            } catch (SocketTimeoutException e) {
                return null;
            }
            return Arrays.copyOf(buffer, reply.getLength());
        }
    }

    /**
     * Sends each frame over one TCP connection (RFC 7766 framing, all written before any reply is read) and
     * returns the raw replies that came before {@code timeout} passed with nothing to read, at most {@code expected}.
     */
    public List<byte[]> rawTcp(List<byte[]> frames, int expected, Duration timeout) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout((int) timeout.toMillis());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            for (byte[] frame : frames) {
                out.writeShort(frame.length);
                out.write(frame);
            }
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            List<byte[]> replies = new ArrayList<>();
            try {
                while (replies.size() < expected) {
                    byte[] reply = new byte[in.readUnsignedShort()];
                    in.readFully(reply);
                    replies.add(reply);
                }
            } catch (SocketTimeoutException | java.io.EOFException e) {
                // what came is the answer: the caller compares the count
            }
            return replies;
        }
    }
}
