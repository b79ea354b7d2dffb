package io.meshdns.it.dns;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The packaged dns-service (target/quarkus-app) run as a real process, its output captured. */
final class DnsServiceProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("dns-service listening on \\S+ port (\\d+)");

    final Process process;
    private final StringBuffer output = new StringBuffer();
    private final CompletableFuture<Integer> port = new CompletableFuture<>();

    private DnsServiceProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    output.append(line).append('\n');
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException ignored) {
                // process ended
            }
            port.completeExceptionally(new IllegalStateException("dns-service exited before listening:\n" + output));
        }, "dns-service-output");
        reader.setDaemon(true);
        reader.start();
    }

    static Path root() {
        return Path.of(System.getProperty("meshdns.root", "..")).toAbsolutePath().normalize();
    }

    /** Starts the jar with {@code -Dkey=value} properties (HTTP on a free port unless given). */
    static DnsServiceProcess start(String... properties) throws IOException {
        Path jar = root().resolve("dns-service/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: package dns-service first");
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=0"));
        for (String p : properties) {
            cmd.add("-D" + p);
        }
        cmd.addAll(List.of("-jar", jar.toString()));
        return new DnsServiceProcess(new ProcessBuilder(cmd).directory(root().toFile()).redirectErrorStream(true).start());
    }

    int awaitPort(Duration timeout) throws Exception {
        return port.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Waits for the process to exit on its own and returns its exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("dns-service did not exit:\n" + output);
        }
        return process.exitValue();
    }

    String output() {
        return output.toString();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
