import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Discovery fan-out: one packaged discovery-service (manifest source) feeding N node watchers, each an honest
 * HTTP/1.1 GET /v1/watch with its own connection, read line by line (NDJSON). Run with bench/fanout/run.
 *
 * <p>Per round: a manifest file is rewritten (one Service's clusterIP changes, an atomic rename), and the time
 * from the rename to the arrival of the new version's line is taken at every watcher. Discovery's CPU (utime +
 * stime from /proc) over the rounds, minus an idle period of the same length, is divided by rounds x watchers;
 * RSS and heap after a full GC are read before and after the watchers connect. Optionally one slow watcher
 * (a socket that sends its request and never reads, with a 4 KB receive buffer) is connected first, and the
 * figures say whether it holds the others back and whether discovery keeps it connected.
 *
 * <p>Arguments: jar watchers rounds services slow(true|false) javaBinary. Every loop is bounded in count and time.
 * One file because bench/fanout/run starts it as a single-file source program ({@code java FanoutBench.java}),
 * which needs no build but cannot see another source file.
 */
public class FanoutBench {
    private static final Pattern VERSION = Pattern.compile("\"version\":(\\d+)");
    private static final Pattern PORT = Pattern.compile("Listening on: http://127\\.0\\.0\\.1:(\\d+)");
    private static final String TOKEN = "fanout-bench";

    public static void main(String[] args) throws Exception {
        Path jar = Path.of(args[0]);
        int watchers = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        int services = Integer.parseInt(args[3]);
        boolean slow = Boolean.parseBoolean(args[4]);
        String java = args.length > 5 ? args[5] : Path.of(System.getProperty("java.home"), "bin", "java").toString();

        Path work = Files.createTempDirectory("fanout-");
        Path manifests = Files.createDirectories(work.resolve("manifests/west"));
        writeServices(manifests.resolve("bulk.yaml"), services);
        Path changing = manifests.resolve("changing.yaml");
        writeChanging(changing, 0);

        Path log = work.resolve("discovery.log");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m", "-XX:+UseSerialGC",
                "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=0",
                "-Dmeshdns.discovery.enabled-local-cluster=false",
                "-Dmeshdns.discovery.manifest-dirs=" + manifests.getParent(),
                "-Dmeshdns.discovery.manifest-poll-interval=100ms",
                "-Dmeshdns.discovery.shared-token=" + TOKEN,
                "-Dmeshdns.discovery.vip-file=" + work.resolve("vips.txt"),
                "-Dmeshdns.discovery.watch.max-lag=" + System.getProperty("fanout.max-lag", "3s")));
        // More discovery flags (-Dkey=value ...), e.g. -Dquarkus.vertx.event-loops-pool-size=2.
        // The slow watcher's share of a 200-Service snapshot alone is more than 16 KB beyond what the kernel holds for it.
        if (slow) cmd.add("-Dmeshdns.discovery.watch.max-queued-bytes=16K");
        String extra = System.getenv().getOrDefault("FANOUT_DISCOVERY_OPTS", "").trim();
        if (!extra.isEmpty()) cmd.addAll(List.of(extra.split("\\s+")));
        cmd.addAll(List.of("-jar", jar.toString()));
        Process discovery = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            int port = awaitPort(log, discovery, Duration.ofSeconds(120));
            String base = "http://127.0.0.1:" + port;
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10))
                    .executor(Executors.newFixedThreadPool(4)).build();
            awaitReady(http, base, Duration.ofSeconds(120));
            long pid = discovery.pid();
            long rssBefore = rssKb(pid);
            long heapBefore = heapAfterGcKb(java, pid);

            Socket slowSocket = null;
            if (slow) {
                slowSocket = new Socket();
                slowSocket.setReceiveBufferSize(4096);
                slowSocket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
                OutputStream out = slowSocket.getOutputStream();
                out.write(("GET /v1/watch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }

            Watcher[] ws = new Watcher[watchers];
            long connectStart = System.nanoTime();
            // Non-blocking HTTP/1.1 clients on a few selector threads (-Dfanout.readers, default 2): the arrival time
            // is taken right after the read that completes a line, not after a hand-off to another thread.
            int readers = Integer.getInteger("fanout.readers", 2);
            Readers readerThreads = new Readers(readers);
            for (int i = 0; i < watchers; i++) {
                ws[i] = new Watcher();
                readerThreads.open(new InetSocketAddress("127.0.0.1", port), ws[i], i % readers);
            }
            long firstVersion = -1;
            for (Watcher w : ws) {
                if (!w.first.await(180, TimeUnit.SECONDS)) throw new IllegalStateException("a watcher got no snapshot in 180 s");
                firstVersion = Math.max(firstVersion, w.lastVersion);
            }
            double connectSeconds = (System.nanoTime() - connectStart) / 1e9;
            Thread.sleep(2000);
            long rssWith = rssKb(pid);
            long heapWith = heapAfterGcKb(java, pid);

            // Idle CPU (heartbeats, polling) over the time the rounds will take, to subtract.
            long roundGapMs = 1500;
            long idleMs = rounds * roundGapMs;
            long cpu0 = cpuTicks(pid);
            Thread.sleep(idleMs);
            long cpuIdle = cpuTicks(pid) - cpu0;

            // Warm-up rounds (JIT), not measured: the same change, the same wait for every watcher.
            int warmup = Integer.getInteger("fanout.warmup", 5);
            for (int r = 1; r <= warmup; r++) {
                writeChangingAtomically(changing, 10_000 + r, work);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                long newVersion = -1;
                for (Watcher w : ws) {
                    if (w.awaitAbove(firstVersion, deadline) == null) throw new IllegalStateException("warm-up: a watcher got nothing in 30 s");
                    newVersion = Math.max(newVersion, w.versionAbove(firstVersion));
                }
                firstVersion = newVersion;
                Thread.sleep(500);
            }

            List<Double> latenciesMs = new ArrayList<>();
            List<Double> slowestPerRound = new ArrayList<>();
            // First watcher to last in one round: the fan-out alone, without the manifest poll, parse and batch window.
            List<Double> spreadPerRound = new ArrayList<>();
            long cpu1 = cpuTicks(pid);
            long roundsStart = System.nanoTime();
            long expectedAbove = firstVersion;
            for (int r = 1; r <= rounds; r++) {
                long t0 = writeChangingAtomically(changing, r, work);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                long newVersion = -1;
                double slowest = 0;
                double fastest = Double.MAX_VALUE;
                for (Watcher w : ws) {
                    Long arrival = w.awaitAbove(expectedAbove, deadline);
                    if (arrival == null) throw new IllegalStateException("round " + r + ": a watcher got nothing in 30 s");
                    double ms = (arrival - t0) / 1e6;
                    latenciesMs.add(ms);
                    slowest = Math.max(slowest, ms);
                    fastest = Math.min(fastest, ms);
                    newVersion = Math.max(newVersion, w.versionAbove(expectedAbove));
                }
                slowestPerRound.add(slowest);
                spreadPerRound.add(slowest - fastest);
                expectedAbove = newVersion;
                long sleep = roundGapMs - (System.nanoTime() - t0) / 1_000_000;
                if (sleep > 0) Thread.sleep(sleep);
            }
            long roundsMs = (System.nanoTime() - roundsStart) / 1_000_000;
            long cpuRounds = cpuTicks(pid) - cpu1;
            double idleScaled = cpuIdle * (double) roundsMs / idleMs;
            double cpuPerDeltaPerWatcherUs = (cpuRounds - idleScaled) * (1e6 / ticksPerSecond()) / ((double) rounds * watchers);

            String slowState = "none";
            if (slowSocket != null) {
                slowState = slowStillConnected(slowSocket) ? "still connected at the end (never read from)" : "disconnected by discovery";
            }

            double[] sorted = latenciesMs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf("watchers=%d rounds=%d services=%d slow-watcher=%s%n", watchers, rounds, services, slow);
            System.out.printf("connect+snapshot to all watchers: %.1f s%n", connectSeconds);
            System.out.printf("delta latency (manifest rename -> line at watcher, includes poll 100ms + batch window): p50 %.0f ms, p99 %.0f ms, max %.0f ms%n",
                    pct(sorted, 50), pct(sorted, 99), sorted[sorted.length - 1]);
            System.out.printf("slowest watcher per round (ms): %s%n", slowestPerRound.stream().map(d -> String.format("%.0f", d)).toList());
            double[] spread = spreadPerRound.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf("fan-out per round, first watcher to last (ms): median %.0f, max %.0f: %s%n", pct(spread, 50),
                    spread[spread.length - 1], spreadPerRound.stream().map(d -> String.format("%.0f", d)).toList());
            System.out.printf("discovery CPU over %d rounds: %.2f s (idle-subtracted %.2f s): %.1f us per delta per watcher%n",
                    rounds, cpuRounds / (double) ticksPerSecond(), (cpuRounds - idleScaled) / ticksPerSecond(), cpuPerDeltaPerWatcherUs);
            System.out.printf("discovery RSS: %d MB before, %d MB with watchers: %.1f KB per watcher%n",
                    rssBefore / 1024, rssWith / 1024, (rssWith - rssBefore) / (double) watchers);
            System.out.printf("discovery heap after full GC: %d MB before, %d MB with watchers: %.1f KB per watcher%n",
                    heapBefore / 1024, heapWith / 1024, (heapWith - heapBefore) / (double) watchers);
            System.out.printf("slow watcher: %s%n", slowState);
            if (slowSocket != null) slowSocket.close();
        } finally {
            discovery.destroy();
            if (!discovery.waitFor(10, TimeUnit.SECONDS)) discovery.destroyForcibly();
        }
        // Only after the finally block: an exit inside the try skipped it and left discovery running after every run.
        System.exit(0);
    }

    /** One node's watch stream: the arrival time of every version it receives. */
    static final class Watcher {
        final CountDownLatch first = new CountDownLatch(1);
        final ConcurrentHashMap<Long, Long> arrivals = new ConcurrentHashMap<>();
        volatile long lastVersion = -1;
        private final Object lock = new Object();

        /** A complete line whose first bytes are {@code prefix} arrived at {@code now}. */
        void line(String prefix, long now) {
            if (prefix.startsWith("{\"type\":\"heartbeat\"")) return;
            Matcher m = VERSION.matcher(prefix);
            if (!m.find()) return;
            long v = Long.parseLong(m.group(1));
            arrivals.putIfAbsent(v, now);
            synchronized (lock) {
                lastVersion = Math.max(lastVersion, v);
                lock.notifyAll();
            }
            first.countDown();
        }

        Long awaitAbove(long version, long deadlineNanos) throws InterruptedException {
            synchronized (lock) {
                while (lastVersion <= version) {
                    long left = deadlineNanos - System.nanoTime();
                    if (left <= 0) return null;
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                }
            }
            return arrivals.entrySet().stream().filter(e -> e.getKey() > version).mapToLong(e -> e.getValue()).min().orElseThrow();
        }

        long versionAbove(long version) {
            return arrivals.keySet().stream().filter(v -> v > version).mapToLong(Long::longValue).max().orElseThrow();
        }
    }

    /**
     * Selector threads, each reading its share of the watch connections: an HTTP/1.1 GET, the response head,
     * then the chunked body decoded and cut into NDJSON lines. Only the first bytes of a line are kept (type and
     * version come first); every byte is still read off the socket.
     */
    static final class Readers {
        private final Selector[] selectors;
        private final Object registering = new Object();

        Readers(int n) throws IOException {
            selectors = new Selector[n];
            for (int i = 0; i < n; i++) {
                Selector sel = Selector.open();
                selectors[i] = sel;
                Thread t = new Thread(() -> loop(sel), "fanout-reader-" + i);
                t.setDaemon(true);
                t.start();
            }
        }

        void open(InetSocketAddress address, Watcher w, int reader) throws IOException {
            SocketChannel ch = SocketChannel.open(address); // blocking connect on loopback, then non-blocking reads
            ch.write(ByteBuffer.wrap(("GET /v1/watch HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: fanout-bench\r\nAuthorization: Bearer "
                    + TOKEN + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
            ch.configureBlocking(false);
            Selector sel = selectors[reader];
            synchronized (registering) {
                sel.wakeup();
                ch.register(sel, SelectionKey.OP_READ, new Stream(w));
            }
        }

        private void loop(Selector sel) {
            ByteBuffer buf = ByteBuffer.allocateDirect(256 * 1024);
            byte[] bytes = new byte[256 * 1024];
            try {
                while (true) {
                    synchronized (registering) {
                        // a register() waiting in open() gets its turn between two selects
                    }
                    sel.select(1000);
                    for (SelectionKey k : sel.selectedKeys()) {
                        SocketChannel ch = (SocketChannel) k.channel();
                        Stream st = (Stream) k.attachment();
                        buf.clear();
                        int n;
                        try {
                            n = ch.read(buf);
                        } catch (IOException e) {
                            n = -1;
                        }
                        long now = System.nanoTime();
                        if (n < 0) {
                            System.err.println("watch stream ended");
                            k.cancel();
                            ch.close();
                            continue;
                        }
                        buf.flip();
                        buf.get(bytes, 0, n);
                        st.feed(bytes, n, now);
                    }
                    sel.selectedKeys().clear();
                }
            } catch (IOException e) {
                System.err.println("reader failed: " + e);
            }
        }
    }

    /** One connection's bytes: the HTTP/1.1 response head, then the chunked transfer coding, then lines. */
    static final class Stream {
        private final Watcher watcher;
        private final StringBuilder head = new StringBuilder();
        private boolean inBody;
        private int state; // 0: chunk size line, 1: chunk data, 2: the CRLF after the data
        private long chunkLeft;
        private final StringBuilder size = new StringBuilder();
        private final StringBuilder linePrefix = new StringBuilder();

        Stream(Watcher watcher) {
            this.watcher = watcher;
        }

        void feed(byte[] b, int n, long now) {
            int i = 0;
            while (i < n) {
                if (!inBody) {
                    head.append((char) b[i++]);
                    int end = head.length();
                    if (end >= 4 && head.substring(end - 4).equals("\r\n\r\n")) {
                        if (!head.toString().startsWith("HTTP/1.1 200")) throw new IllegalStateException("watch answered " + head);
                        inBody = true;
                    }
                } else if (state == 0) {
                    char c = (char) b[i++];
                    if (c == '\n') {
                        String hex = size.toString().trim();
                        int semi = hex.indexOf(';');
                        chunkLeft = Long.parseLong(semi >= 0 ? hex.substring(0, semi) : hex, 16);
                        size.setLength(0);
                        state = chunkLeft == 0 ? 2 : 1;
                    } else if (c != '\r') {
                        size.append(c);
                    }
                } else if (state == 1) {
                    int take = (int) Math.min(chunkLeft, n - i);
                    for (int j = i; j < i + take; j++) {
                        byte x = b[j];
                        if (x == '\n') {
                            watcher.line(linePrefix.toString(), now);
                            linePrefix.setLength(0);
                        } else if (linePrefix.length() < 96) {
                            linePrefix.append((char) x);
                        }
                    }
                    i += take;
                    chunkLeft -= take;
                    if (chunkLeft == 0) state = 2;
                } else {
                    char c = (char) b[i++];
                    if (c == '\n') state = 0;
                }
            }
        }
    }

    private static boolean slowStillConnected(Socket s) {
        try {
            // Peek without consuming much: a closed connection reads -1 once the buffered bytes are gone; we only
            // check the socket's state and one non-blocking-ish read.
            s.setSoTimeout(200);
            InputStream in = s.getInputStream();
            byte[] buf = new byte[1];
            return in.read(buf) >= 0;
        } catch (java.net.SocketTimeoutException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void writeServices(Path file, int n) throws IOException {
        StringBuilder b = new StringBuilder("apiVersion: v1\nkind: Namespace\nmetadata: {name: bench}\n");
        for (int i = 0; i < n; i++) {
            b.append("---\napiVersion: v1\nkind: Service\nmetadata: {name: svc-").append(i).append(", namespace: bench}\n")
                    .append("spec:\n  clusterIP: 10.96.").append(i / 250).append('.').append(i % 250 + 1)
                    .append("\n  ports:\n  - {name: http, port: 80, protocol: TCP}\n");
        }
        Files.writeString(file, b.toString());
    }

    private static void writeChanging(Path file, int round) throws IOException {
        Files.writeString(file, "apiVersion: v1\nkind: Service\nmetadata: {name: changing, namespace: bench}\nspec:\n  clusterIP: 10.100."
                + (round / 250) + "." + (round % 250 + 1) + "\n  ports:\n  - {name: http, port: 80, protocol: TCP}\n");
    }

    /** Writes the next version next to the manifests and renames it into place; returns the time of the rename. */
    private static long writeChangingAtomically(Path file, int round, Path work) throws IOException {
        Path tmp = work.resolve("changing.tmp");
        writeChanging(tmp, round);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return System.nanoTime();
    }

    private static int awaitPort(Path log, Process p, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) throw new IllegalStateException("discovery exited:\n" + Files.readString(log));
            if (Files.exists(log)) {
                Matcher m = PORT.matcher(Files.readString(log));
                if (m.find()) return Integer.parseInt(m.group(1));
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no port in " + timeout + ":\n" + Files.readString(log));
    }

    private static void awaitReady(HttpClient http, String base, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/v1/status"))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200 && r.body().contains("\"ready\":true")) return;
            Thread.sleep(200);
        }
        throw new IllegalStateException("discovery not ready in " + timeout);
    }

    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
    }

    private static long ticksPerSecond() {
        return 100; // USER_HZ on Linux x86_64
    }

    private static long rssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
        return -1;
    }

    /** Heap used after a full GC, from jcmd (the JDK's own, next to the java binary given). */
    private static long heapAfterGcKb(String java, long pid) throws Exception {
        String jcmd = Path.of(java).getParent().resolve("jcmd").toString();
        run(jcmd, String.valueOf(pid), "GC.run");
        String info = run(jcmd, String.valueOf(pid), "GC.heap_info");
        // Serial GC: "def new generation total ..K, used ..K" and "tenured generation total ..K, used ..K"
        // (the Metaspace and class space lines are not heap).
        long used = 0;
        Pattern usedK = Pattern.compile("used (\\d+)K");
        for (String line : info.split("\n")) {
            if (!line.contains("generation")) continue;
            Matcher m = usedK.matcher(line);
            if (m.find()) used += Long.parseLong(m.group(1));
        }
        return used;
    }

    private static String run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) p.destroyForcibly();
        return out;
    }

    private static double pct(double[] sorted, double p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
