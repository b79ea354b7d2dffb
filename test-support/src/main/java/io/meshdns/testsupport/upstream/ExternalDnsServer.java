package io.meshdns.testsupport.upstream;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A real DNS server (BIND9 or Knot from Debian) run by a test as a child process on a loopback port,
 * with its config and zones in a temp directory. Subclasses write the config; this class starts,
 * stops and restarts the process (same port, so a restart looks like an upstream recovering), and
 * waits until it answers.
 */
public abstract class ExternalDnsServer implements AutoCloseable {
    protected final Path dir;
    protected final int port;
    private Process process;

    protected ExternalDnsServer(Path dir) {
        this.dir = dir;
        this.port = freePort();
    }

    /** The command line that runs the server in the foreground. */
    protected abstract List<String> command();

    /** Writes config and zone files into {@link #dir}. Called before every start. */
    protected abstract void writeConfig() throws IOException;

    /** A name the server answers once it is ready (e.g. the SOA of its first zone). */
    protected abstract Name readinessName();

    protected Path logFile() {
        return dir.resolve("server.log");
    }

    public int port() {
        return port;
    }

    /** host:port, the form of {@code meshdns.dns.upstreams}. */
    public String address() {
        return "127.0.0.1:" + port;
    }

    public synchronized void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        try {
            Files.createDirectories(dir);
            writeConfig();
            process = new ProcessBuilder(command()).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile())).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + command(), e);
        }
        Awaitility.await("DNS server on port " + port + " (" + getClass().getSimpleName() + ") answering")
                .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(this::answers);
    }

    private boolean answers() throws IOException {
        if (!process.isAlive()) {
            throw new IllegalStateException(getClass().getSimpleName() + " exited, see " + logFile() + ":\n" + log());
        }
        SimpleResolver r = new SimpleResolver(InetAddress.getLoopbackAddress());
        r.setPort(port);
        r.setTimeout(Duration.ofMillis(300));
        Message response = r.send(Message.newQuery(Record.newRecord(readinessName(), Type.SOA, DClass.IN)));
        return response.getHeader().getRcode() == 0 && !response.getSection(1).isEmpty();
    }

    /** Stops the process (SIGTERM, then SIGKILL) and waits until it is gone. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    public void restart() {
        stop();
        start();
    }

    /** The server's whole log so far. */
    public String log() {
        try {
            return Files.exists(logFile()) ? Files.readString(logFile(), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        stop();
    }

    /** A loopback port free for both UDP and TCP right now. */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public static int freePort() {
        for (int i = 0; i < 50; i++) {
            try (ServerSocket tcp = new ServerSocket()) {
                tcp.setReuseAddress(false);
                tcp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), tcp.getLocalPort()))) {
                    // The kernel may hand the same ephemeral port out again once we close it: two calls in a row
                    // (a service's HTTP port, then its DNS port) must still get different ports.
                    if (!HANDED_OUT.add(udp.getLocalPort())) continue;
                    return udp.getLocalPort();
                }
            } catch (IOException e) {
                // taken for UDP: try another
            }
        }
        throw new IllegalStateException("no free loopback port");
    }
}
