package io.meshdns.dns.testing;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.meshdns.dns.forward.Forwarder;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocket;
import org.xbill.DNS.Message;

/**
 * A minimal UDP front door that hands every query to a {@link Forwarder}: it stands in for
 * dns-service's real listener (built on another branch) so that a real BIND can forward back to the
 * forwarder and form a loop. Once the listener has landed, tests should use it instead.
 */
public final class ForwarderUdpFrontend implements AutoCloseable {
    private final DatagramSocket socket;

    public ForwarderUdpFrontend(Vertx vertx, Supplier<Forwarder> forwarder) throws Exception {
        socket = vertx.createDatagramSocket();
        socket.handler(packet -> {
            Message query;
            try {
                query = new Message(packet.data().getBytes());
            } catch (IOException e) {
                return;
            }
            Forwarder f = forwarder.get();
            if (f == null) {
                return;
            }
            f.forward(query).thenAccept(response ->
                    socket.send(Buffer.buffer(response.toWire(1232)), packet.sender().port(), packet.sender().host()));
        });
        socket.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    public int port() {
        return socket.localAddress().port();
    }

    @Override
    public void close() {
        socket.close();
    }
}
