package io.meshdns.dns.server;

import org.xbill.DNS.Message;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * One request's replies and its end: {@code done} runs once, however many paths reach it (the TCP listener counts
 * the request in flight until then, so a path that skipped it would leave a connection busy for ever).
 */
final class Exchange {
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
