package io.meshdns.testsupport.dns;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/** A server process of a test in its own temp dir: started, waited for, stopped by the handle we keep, dir removed. */
public class ChildProcess implements AutoCloseable {

    protected final Path dir;
    private Process process;
    private Path log;

    protected ChildProcess(String name) throws IOException {
        this.dir = Files.createTempDirectory("meshdns-" + name);
    }

    public Path dir() {
        return dir;
    }

    protected void launch(List<String> cmd, BooleanSupplier ready, Duration within) throws IOException {
        log = dir.resolve("server.log");
        process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Instant deadline = Instant.now().plus(within);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) throw new IllegalStateException(cmd.get(0) + " exited: " + log());
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

    public String log() {
        try {
            return log == null ? "" : Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Stops the process (SIGTERM, then SIGKILL after 10 s); the data dir stays (a restart reuses it). */
    public void stop() {
        if (process == null) return;
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    @Override
    public void close() throws IOException {
        stop();
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
