package io.meshdns.it.testing;

import io.meshdns.dns.testing.ExternalDnsServer;
import org.awaitility.Awaitility;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A packaged meshdns service ({@code <module>/target/quarkus-app/quarkus-run.jar}) run as a child
 * process with {@code -D} properties, its output in a log file. Started with a fixed HTTP port so the
 * test can wait for /q/health/ready; a restart keeps every property (same ports, same files).
 * A JVM shutdown hook kills it if the test JVM dies before {@link #close()}.
 */
public final class ServiceProcess implements AutoCloseable {
    public static final Path ROOT = Path.of(System.getProperty("meshdns.root", "..")).toAbsolutePath().normalize();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final Path jar;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private final Path log;
    private final int httpPort;
    private Process process;
    private final Thread killer = new Thread(this::kill);

    public ServiceProcess(String name, String module, Path logDir) {
        this.name = name;
        this.jar = ROOT.resolve(module).resolve("target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: package the services first (mvn -pl " + module + " -am package)");
        }
        this.log = logDir.resolve(name + ".log");
        this.httpPort = ExternalDnsServer.freePort();
        property("quarkus.http.host", "127.0.0.1");
        property("quarkus.http.port", String.valueOf(httpPort));
        property("quarkus.banner.enabled", "false");
    }

    public ServiceProcess property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    public ServiceProcess env(String key, String value) {
        env.put(key, value);
        return this;
    }

    public String httpUrl() {
        return "http://127.0.0.1:" + httpPort;
    }

    /** Starts the process (appending to its log) and waits until /q/health/ready answers 200. */
    public synchronized ServiceProcess start() {
        if (process != null && process.isAlive()) return this;
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC", "-Xmx192m"));
        properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-jar");
        cmd.add(jar.toString());
        try {
            Files.writeString(log, "---- start " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(ROOT.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            pb.environment().putAll(env);
            process = pb.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + name, e);
        }
        Runtime.getRuntime().addShutdownHook(killer);
        Awaitility.await(name + " ready at " + httpUrl() + "/q/health/ready (log " + log + ")")
                .atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> {
                    if (!process.isAlive()) throw new IllegalStateException(name + " exited:\n" + log());
                    return get("/q/health/ready", null).statusCode() == 200;
                });
        return this;
    }

    /** Stops the process (SIGTERM, then SIGKILL) and waits until it is gone. */
    public synchronized void stop() {
        if (process == null) return;
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException ignored) {
            // the JVM is already shutting down
        }
        process = null;
    }

    private void kill() {
        Process p = process;
        if (p == null) return;
        p.destroy();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public HttpResponse<String> get(String path, String bearer) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(httpUrl() + path)).timeout(Duration.ofSeconds(5));
        if (bearer != null) b.header("Authorization", "Bearer " + bearer);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    public String log() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + log + ")";
        }
    }

    @Override
    public void close() {
        stop();
    }
}
