package io.meshdns.it.testing;

import io.meshdns.testsupport.dns.LoopbackPorts;
import io.meshdns.testsupport.QuarkusJarProcess;
import org.awaitility.Awaitility;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A packaged meshdns service run as a restartable child process ({@link QuarkusJarProcess}), its output in a log
 * file. Started with a fixed HTTP port so the test can wait for /q/health/ready; a restart keeps every property
 * (same ports, same files) and appends to the same log.
 */
public final class ServiceProcess implements AutoCloseable {

    private final String name;
    private final QuarkusJarProcess.Launch launch;
    private final Path log;
    private final int httpPort;
    private QuarkusJarProcess process;

    public ServiceProcess(String name, String module, Path logDir) {
        this.name = name;
        this.log = logDir.resolve(name + ".log");
        this.httpPort = LoopbackPorts.pick();
        this.launch = QuarkusJarProcess.module(module).jvmOptions(QuarkusJarProcess.FAST_START_JVM).logFile(log)
                .property("quarkus.http.host", "127.0.0.1")
                .property("quarkus.http.port", String.valueOf(httpPort))
                .property("quarkus.banner.enabled", "false");
    }

    public ServiceProcess property(String key, String value) {
        launch.property(key, value);
        return this;
    }

    public ServiceProcess env(String key, String value) {
        launch.env(key, value);
        return this;
    }

    public String httpUrl() {
        return "http://127.0.0.1:" + httpPort;
    }

    /** Starts the process (appending to its log) and waits until /q/health/ready answers 200. */
    public synchronized ServiceProcess start() {
        if (isAlive()) return this;
        stop(); // a run that died on its own: drop its kill-on-exit hook
        try {
            process = launch.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + name, e);
        }
        QuarkusJarProcess started = process;
        Awaitility.await(name + " ready at " + httpUrl() + "/q/health/ready (log " + log + ")")
                .atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> {
                    if (!started.isAlive()) throw new IllegalStateException(name + " exited:\n" + log());
                    return get("/q/health/ready", null).statusCode() == 200;
                });
        return this;
    }

    /** Stops the process (SIGTERM, then SIGKILL) and waits until it is gone. */
    public synchronized void stop() {
        if (process == null) return;
        process.close();
        process = null;
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    public HttpResponse<String> get(String path, String bearer) throws IOException, InterruptedException {
        return get(path, bearer, Duration.ofSeconds(5));
    }

    /** GET with a longer {@code timeout} for answers that take a while to build (explain). */
    public HttpResponse<String> get(String path, String bearer, Duration timeout) throws IOException, InterruptedException {
        return Http.get(httpUrl() + path, bearer, timeout);
    }

    /** Every run's output so far, each run after a {@code ---- start <command line>} line. */
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
