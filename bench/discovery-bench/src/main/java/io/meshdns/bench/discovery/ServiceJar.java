package io.meshdns.bench.discovery;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A packaged meshdns service ({@code <module>/target/quarkus-app/quarkus-run.jar}) run as a child
 * process with {@code -D} properties, its output in a log file, plus what the benchmark reads from it:
 * /q/health/ready, /q/metrics, /proc/PID/status, and a full GC through jcmd before memory is read.
 */
final class ServiceJar implements AutoCloseable {
    private static final HttpClient HTTP = http();
    private static final Pattern HEAP_USED = Pattern.compile("(?m)^jvm_memory_used_bytes\\{[^}]*area=\"heap\"[^}]*} ([0-9.eE+-]+)$");
    private static final Pattern HEAP_COMMITTED = Pattern.compile("(?m)^jvm_memory_committed_bytes\\{[^}]*area=\"heap\"[^}]*} ([0-9.eE+-]+)$");

    private final String name;
    private final Path jar;
    private final List<String> javaOpts;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private final Path log;
    private final int httpPort = freePort();
    private Process process;
    private long startNanos;
    /** Stops the service when the harness is stopped (SIGTERM from bench/discovery) before {@link #close()}. */
    private final Thread killer = new Thread(this::stop);

    ServiceJar(String name, Path jar, List<String> javaOpts, Path logDir) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build with bench/discovery --build "
                    + "(or mvn -B -q -pl dns-service,discovery-service -am package -DskipTests)");
        }
        this.name = name;
        this.jar = jar;
        this.javaOpts = List.copyOf(javaOpts);
        this.log = logDir.resolve(name + ".log");
        property("quarkus.http.host", "127.0.0.1");
        property("quarkus.http.port", String.valueOf(httpPort));
        property("quarkus.banner.enabled", "false");
    }

    ServiceJar property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    ServiceJar env(String key, String value) {
        env.put(key, value);
        return this;
    }

    String httpUrl() {
        return "http://127.0.0.1:" + httpPort;
    }

    Path log() {
        return log;
    }

    Path gcLog() {
        return log.resolveSibling(name + "-gc.log");
    }

    /**
     * GC pauses logged ({@code -Xlog:gc}) between two nanoTimes of this harness (JVM uptime is counted from
     * just after the fork, close enough at this resolution): count, and the longest in ms.
     */
    long[] gcPauses(long fromNanos, long toNanos) throws IOException {
        if (!Files.exists(gcLog())) return new long[]{0, 0};
        Matcher m = Pattern.compile("(?m)^\\[([0-9.]+)s].* Pause .* ([0-9.]+)ms$").matcher(Files.readString(gcLog()));
        double from = (fromNanos - startNanos) / 1e9;
        double to = (toNanos - startNanos) / 1e9;
        long n = 0;
        double max = 0;
        while (m.find()) {
            double at = Double.parseDouble(m.group(1));
            if (at < from || at > to) continue;
            n++;
            max = Math.max(max, Double.parseDouble(m.group(2)));
        }
        return new long[]{n, Math.round(max)};
    }

    /** Forks the JVM; {@link #startNanos()} is taken just before the fork. */
    ServiceJar start() throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(javaOpts);
        // GC pauses explain latency tails; the log goes beside the service's own (unless the flags bring one).
        if (javaOpts.stream().noneMatch(o -> o.startsWith("-Xlog:gc"))) cmd.add("-Xlog:gc:file=" + gcLog() + ":uptime");
        properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-jar");
        cmd.add(jar.toString());
        Files.writeString(log, "---- " + String.join(" ", cmd) + "\n");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        startNanos = System.nanoTime();
        process = pb.start();
        Runtime.getRuntime().addShutdownHook(killer);
        return this;
    }

    long startNanos() {
        return startNanos;
    }

    long pid() {
        return process.pid();
    }

    void requireAlive() {
        if (!process.isAlive()) throw new IllegalStateException(name + " exited with " + process.exitValue() + " (log " + log + ")");
    }

    /** Polls /q/health/ready every 20 ms; returns the nanoTime of the first 200. */
    long awaitReady(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            requireAlive();
            try {
                if (get("/q/health/ready", null).statusCode() == 200) return System.nanoTime();
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException(name + " not ready within " + limit + " (log " + log + ")");
    }

    HttpResponse<String> get(String path, String bearer) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(httpUrl() + path)).timeout(Duration.ofSeconds(30));
        if (bearer != null) b.header("Authorization", "Bearer " + bearer);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The value of a metric without labels (a gauge), or NaN when absent. */
    double metric(String metric) throws IOException, InterruptedException {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(metric) + "(?:\\{[^}]*})? ([0-9.eE+-]+)$").matcher(get("/q/metrics", null).body());
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    /** Memory as the kernel and the JVM see it; with {@code gcFirst} after a full GC (jcmd GC.run) and a second's settling. */
    Memory memory(boolean gcFirst) throws IOException, InterruptedException {
        if (gcFirst) {
            Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
            Process p = new ProcessBuilder(Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd", String.valueOf(pid()), "GC.run")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) System.err.println("warning: jcmd GC.run failed for " + name);
            Thread.sleep(1000);
        }
        String status = Files.readString(Path.of("/proc", String.valueOf(pid()), "status"));
        String metrics = get("/q/metrics", null).body();
        return new Memory(kib(status, "VmRSS") / 1024.0, kib(status, "VmHWM") / 1024.0, sumMb(HEAP_USED, metrics), sumMb(HEAP_COMMITTED, metrics));
    }

    /** Sum over the heap pools (eden, survivor, old), in MiB. */
    private static double sumMb(Pattern p, String metrics) {
        Matcher m = p.matcher(metrics);
        double sum = 0;
        while (m.find()) sum += Double.parseDouble(m.group(1));
        return sum / (1024 * 1024);
    }

    record Memory(double rssMb, double peakRssMb, double heapUsedMb, double heapCommittedMb) {
    }

    private static long kib(String status, String field) {
        Matcher m = Pattern.compile("(?m)^" + field + ":\\s+(\\d+) kB").matcher(status);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** HTTP/1.1 as dns-service speaks it (java.net.http would otherwise try an h2c upgrade). */
    static HttpClient http() {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (process == null) return;
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    private void stop() {
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
