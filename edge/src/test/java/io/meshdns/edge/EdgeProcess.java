package io.meshdns.edge;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

/**
 * The packaged edge app ({@code edge/target/quarkus-app/quarkus-run.jar}) as a child process, started in the
 * repository root with {@code -Dkey=value} properties. DNS and HTTP listen on ports the process picks itself
 * ({@code port=0}); both are read from its log lines, so no port is guessed free and then raced for.
 */
final class EdgeProcess implements AutoCloseable {
    static final Path ROOT = Path.of(System.getProperty("meshdns.root", "..")).toAbsolutePath().normalize();
    private static final Path JAR = Path.of(System.getProperty("meshdns.edge.jar",
            ROOT.resolve("edge/target/quarkus-app/quarkus-run.jar").toString()));
    private static final Pattern DNS_PORT = Pattern.compile("dns-service listening on \\S+ port (\\d+)");
    private static final Pattern HTTP_PORT = Pattern.compile("Listening on: http://127\\.0\\.0\\.1:(\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final CompletableFuture<Integer> dnsPort = new CompletableFuture<>();
    private final CompletableFuture<Integer> httpPort = new CompletableFuture<>();
    private final Thread killer = new Thread(this::kill);

    private EdgeProcess(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    output.append(line).append('\n');
                    complete(DNS_PORT.matcher(line), dnsPort);
                    complete(HTTP_PORT.matcher(line), httpPort);
                }
            } catch (IOException ignored) {
                // the process ended
            }
            IllegalStateException exited = new IllegalStateException("edge exited before listening:\n" + output);
            dnsPort.completeExceptionally(exited);
            httpPort.completeExceptionally(exited);
        }, "edge-output");
        reader.setDaemon(true);
        reader.start();
        Runtime.getRuntime().addShutdownHook(killer);
    }

    private static void complete(Matcher m, CompletableFuture<Integer> port) {
        if (m.find()) port.complete(Integer.parseInt(m.group(1)));
    }

    /** Starts the jar on loopback (HTTP and DNS on ports of its choosing) with the given {@code key=value} properties. */
    static EdgeProcess start(List<String> properties) throws IOException {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR + " is missing: package it first (mvn -pl edge -am package)");
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:+UseSerialGC", "-Xmx192m",
                "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=0", "-Dmeshdns.dns.port=0"));
        for (String p : properties) cmd.add("-D" + p);
        cmd.addAll(List.of("-jar", JAR.toString()));
        return new EdgeProcess(new ProcessBuilder(cmd).directory(ROOT.toFile()).redirectErrorStream(true).start());
    }

    int dnsPort(Duration timeout) throws Exception {
        return dnsPort.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    String httpUrl(Duration timeout) throws Exception {
        return "http://127.0.0.1:" + httpPort.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    HttpResponse<String> get(String path, String bearer) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(httpUrl(Duration.ofSeconds(60)) + path)).timeout(Duration.ofSeconds(5));
        if (bearer != null) b.header("Authorization", "Bearer " + bearer);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The first line of {@code path}, for streams that never end (/v1/watch). */
    String firstLine(String path, String bearer) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(httpUrl(Duration.ofSeconds(60)) + path))
                .header("Authorization", "Bearer " + bearer).timeout(Duration.ofSeconds(10)).build();
        HttpResponse<java.util.stream.Stream<String>> resp = HTTP.send(req, HttpResponse.BodyHandlers.ofLines());
        try (java.util.stream.Stream<String> lines = resp.body()) {
            return resp.statusCode() + " " + lines.findFirst().orElse("");
        }
    }

    /** Waits for the process to exit on its own and returns its exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            kill();
            throw new IllegalStateException("edge did not exit:\n" + output);
        }
        return process.exitValue();
    }

    String output() {
        return output.toString();
    }

    private void kill() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(killer);
        } catch (IllegalStateException ignored) {
            // the JVM is already shutting down
        }
    }
}
