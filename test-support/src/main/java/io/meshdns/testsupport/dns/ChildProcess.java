package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * A real server a test runs as a child process (BIND9, Knot, Unbound, PowerDNS, etcd): its config and data in one
 * folder, its output appended to {@code server.log} there across restarts, started and waited for until it
 * answers, stopped by the handle kept (never by name). The folder is a temp dir of its own, removed at
 * {@link #close()}, or one the test hands in, which the test keeps.
 */
public class ChildProcess implements AutoCloseable {

    protected final Path dir;
    private final boolean ownDir;
    private Process process;

    /** In a temp dir of its own ({@code meshdns-<name>…}), removed at {@link #close()}. */
    protected ChildProcess(String name) throws IOException {
        this.dir = Files.createTempDirectory("meshdns-" + name);
        this.ownDir = true;
    }

    /** In the test's {@code dir} (created at start if missing), left in place at {@link #close()}. */
    protected ChildProcess(Path dir) {
        this.dir = dir;
        this.ownDir = false;
    }

    public Path dir() {
        return dir;
    }

    protected Path logFile() {
        return dir.resolve("server.log");
    }

    /**
     * Runs {@code cmd} in {@link #dir} and polls {@code ready} every 50 ms until it holds; fails with the log if the
     * process exits first or {@code within} passes.
     */
    protected void launch(List<String> cmd, BooleanSupplier ready, Duration within) throws IOException {
        Files.createDirectories(dir);
        process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile())).start();
        Instant deadline = Instant.now().plus(within);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) throw new IllegalStateException(cmd.get(0) + " exited, see " + logFile() + ":\n" + log());
            if (ready.getAsBoolean()) return;
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        throw new IllegalStateException(cmd.get(0) + " did not get ready in " + within + ": " + log());
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The server's whole log so far (every run's). */
    public String log() {
        try {
            return Files.exists(logFile()) ? Files.readString(logFile()) : "";
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Stops the process (SIGTERM, then SIGKILL after 10 s) and waits until it is gone; the dir stays (a restart reuses it). */
    public synchronized void stop() {
        if (process == null) return;
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /** Stops the process; removes the dir if it is the launcher's own. */
    @Override
    public void close() {
        stop();
        if (!ownDir) return;
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
