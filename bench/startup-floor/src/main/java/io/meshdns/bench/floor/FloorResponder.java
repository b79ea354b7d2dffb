package io.meshdns.bench.floor;

import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocket;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;

/**
 * The least a Quarkus DNS responder can do: bind a UDP socket at start and answer every query with
 * one A record (floor.address). No zone, no cache, no metrics, no HTTP: the time from process start
 * to its first answer is the framework's share of dns-service's start.
 */
@ApplicationScoped
public class FloorResponder {
    // dns-service's own keys, so bench/startup launches both the same way.
    @ConfigProperty(name = "meshdns.dns.port", defaultValue = "25553")
    int port;
    @ConfigProperty(name = "meshdns.dns.bind-address", defaultValue = "127.0.0.1")
    String bindAddress;
    @ConfigProperty(name = "floor.address", defaultValue = "10.0.0.1")
    String address;

    void start(@Observes StartupEvent event, Vertx vertx) throws Exception {
        byte[] a = InetAddress.getByName(address).getAddress();
        DatagramSocket socket = vertx.createDatagramSocket();
        CompletableFuture<Void> bound = new CompletableFuture<>();
        socket.handler(packet -> {
            byte[] answer = answer(packet.data().getBytes(), a);
            if (answer != null) {
                socket.send(Buffer.buffer(answer), packet.sender().port(), packet.sender().host());
            }
        }).listen(port, bindAddress, r -> {
            if (r.succeeded()) bound.complete(null);
            else bound.completeExceptionally(r.cause());
        });
        bound.get();
    }

    /** The query with QR and AA set and one A record for the question's name (a compression pointer to it). */
    static byte[] answer(byte[] q, byte[] address) {
        if (q.length < 17 || q[4] != 0 || q[5] != 1) {
            return null;
        }
        int p = 12;
        while (p < q.length && q[p] != 0) {
            p += (q[p] & 0xFF) + 1;
        }
        int questionEnd = p + 5;
        if (questionEnd > q.length) {
            return null;
        }
        byte[] r = new byte[questionEnd + 16];
        System.arraycopy(q, 0, r, 0, questionEnd);
        r[2] = (byte) (0x84 | (q[2] & 0x01)); // QR, AA, the query's RD
        r[3] = 0;
        r[7] = 1; // ANCOUNT
        r[9] = 0; r[11] = 0; // no authority, no additional
        int o = questionEnd;
        r[o] = (byte) 0xC0; r[o + 1] = 12; // the name: a pointer to the question
        r[o + 3] = 1; // type A
        r[o + 5] = 1; // class IN
        r[o + 9] = 30; // TTL 30
        r[o + 11] = 4; // RDLENGTH
        System.arraycopy(address, 0, r, o + 12, 4);
        return r;
    }
}
