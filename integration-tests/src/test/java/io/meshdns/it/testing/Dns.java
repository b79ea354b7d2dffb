package io.meshdns.it.testing;

import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;

/** Queries one DNS server on a loopback port over UDP with dnsjava's SimpleResolver. */
public final class Dns {
    private final SimpleResolver resolver;

    public Dns(int port) {
        this(port, null);
    }

    /**
     * Queries sent from {@code sourceAddress} (a loopback address such as 127.0.0.2, standing for one pod's IP), so
     * the server sees that client; null: the resolver's default.
     */
    public Dns(int port, String sourceAddress) {
        resolver = new SimpleResolver(InetAddress.getLoopbackAddress());
        resolver.setPort(port);
        resolver.setTimeout(Duration.ofSeconds(1));
        if (sourceAddress != null) resolver.setLocalAddress(new java.net.InetSocketAddress(sourceAddress, 0));
    }

    /** The same server, asked from {@code sourceAddress}. */
    public Dns from(String sourceAddress) {
        return new Dns(resolver.getAddress().getPort(), sourceAddress);
    }

    public Message query(String name, int type) {
        try {
            return resolver.send(Message.newQuery(Record.newRecord(Name.fromString(name.endsWith(".") ? name : name + "."), type, DClass.IN)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The sorted A (or AAAA) addresses of the answer, or the rcode name in brackets when it is not NOERROR. */
    public List<String> addresses(String name, int type) {
        Message m = query(name, type);
        int rcode = m.getRcode();
        if (rcode != Rcode.NOERROR) return List.of("[" + Rcode.string(rcode) + "]");
        TreeSet<String> out = new TreeSet<>();
        for (Record r : m.getSection(Section.ANSWER)) {
            if (r.getType() == type) out.add(r.rdataToString());
        }
        return List.copyOf(out);
    }

    /** The A addresses in the order the answer lists them (what a client that takes the first one gets). */
    public List<String> aInOrder(String name) {
        Message m = query(name, Type.A);
        if (m.getRcode() != Rcode.NOERROR) return List.of("[" + Rcode.string(m.getRcode()) + "]");
        List<String> out = new java.util.ArrayList<>();
        for (Record r : m.getSection(Section.ANSWER)) {
            if (r.getType() == Type.A) out.add(r.rdataToString());
        }
        return out;
    }

    public List<String> a(String name) {
        return addresses(name, Type.A);
    }

    public List<String> aaaa(String name) {
        return addresses(name, Type.AAAA);
    }
}
