package io.meshdns.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a loopback port in front of one upstream, for cutting connections the way a network does:
 * {@link #resetAll()} aborts every proxied connection with a TCP RST on both sides (SO_LINGER 0, so neither
 * peer sees an orderly close), and {@link #refuse()} closes the listening socket so that new connections are
 * refused until {@link #accept()} binds the same port again. Bytes pass through untouched: whatever protocol
 * runs over it (HTTP, WebSocket, TLS) sees real socket errors.
 */
public final class FaultProxy implements AutoCloseable {
    private static final int CONNECT_TIMEOUT_MILLIS = 2000;

    private final InetSocketAddress upstream;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger reset = new AtomicInteger();
    private final int port;
    private ServerSocket listener;
    private volatile boolean closed;

    /** Listens on 127.0.0.1, a free port, forwarding to {@code upstreamHost:upstreamPort}. */
    public FaultProxy(String upstreamHost, int upstreamPort) {
        this.upstream = new InetSocketAddress(upstreamHost, upstreamPort);
        this.port = bind(0);
    }

    public int port() {
        return port;
    }

    /** {@code http://127.0.0.1:<port>}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Connections accepted since start. */
    public int connectionsAccepted() {
        return accepted.get();
    }

    /** Connections aborted by {@link #resetAll()} or {@link #refuse()} since start. */
    public int connectionsReset() {
        return reset.get();
    }

    /** Connections open now. */
    public int openConnections() {
        return links.size();
    }

    /** Aborts every open connection with an RST to both peers; returns how many. The proxy keeps accepting. */
    public synchronized int resetAll() {
        int n = 0;
        for (Link l : links) {
            if (l.abort()) n++;
        }
        reset.addAndGet(n);
        return n;
    }

    /** Stops listening (new connections get "connection refused") and aborts the open ones. */
    public synchronized void refuse() {
        closeQuietly(listener);
        listener = null;
        resetAll();
    }

    /** Listens again on the same port after {@link #refuse()}; a no-op while listening. */
    public synchronized void accept() {
        if (listener == null) bind(port);
    }

    @Override
    public synchronized void close() {
        closed = true;
        refuse();
    }

    private synchronized int bind(int onPort) {
        try {
            ServerSocket s = new ServerSocket();
            // The port must come back after refuse(): connections the proxy closed may sit in TIME_WAIT on it.
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort), 64);
            listener = s;
            Thread t = new Thread(() -> acceptLoop(s), "fault-proxy-accept-" + s.getLocalPort());
            t.setDaemon(true);
            t.start();
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("fault proxy cannot listen on 127.0.0.1:" + onPort, e);
        }
    }

    private void acceptLoop(ServerSocket s) {
        while (!s.isClosed()) {
            Socket client;
            try {
                client = s.accept();
            } catch (IOException e) {
                return; // refused or closed
            }
            accepted.incrementAndGet();
            Socket server = new Socket();
            try {
                server.connect(upstream, CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                // Upstream down: the client sees what it would see from a dead host behind a load balancer.
                abort(client);
                closeQuietly(server);
                continue;
            }
            Link link = new Link(client, server);
            links.add(link);
            if (closed || s.isClosed()) {
                link.abort();
                continue;
            }
            link.start();
        }
    }

    /** One proxied connection: a pump thread per direction. */
    private final class Link {
        private final Socket client;
        private final Socket server;
        private final AtomicInteger halfClosed = new AtomicInteger();
        private volatile boolean done;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void start() {
            pump(client, server, "up");
            pump(server, client, "down");
        }

        private void pump(Socket from, Socket to, String direction) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[16 * 1024];
                try {
                    InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream();
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                    // An orderly close from one peer passes on as an orderly (half) close.
                    to.shutdownOutput();
                    if (halfClosed.incrementAndGet() == 2) finish();
                } catch (IOException e) {
                    // Aborted by us, or by a peer: the other side learns it too.
                    finish();
                }
            }, "fault-proxy-" + direction + "-" + from.getPort());
            t.setDaemon(true);
            t.start();
        }

        private void finish() {
            done = true;
            closeQuietly(client);
            closeQuietly(server);
            links.remove(this);
        }

        /** RST to both peers; false when the connection had ended already. */
        boolean abort() {
            if (done) return false;
            done = true;
            FaultProxy.abort(client);
            FaultProxy.abort(server);
            links.remove(this);
            return true;
        }
    }

    private static void abort(Socket s) {
        try {
            s.setSoLinger(true, 0); // close() now sends RST instead of FIN
        } catch (SocketException ignored) {
            // already closed
        }
        closeQuietly(s);
    }

    private static void closeQuietly(java.io.Closeable c) {
        if (c == null) return;
        try {
            c.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
