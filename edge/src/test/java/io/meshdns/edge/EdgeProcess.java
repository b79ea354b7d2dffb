package io.meshdns.edge;

import io.meshdns.testsupport.LogLines;
import io.meshdns.testsupport.QuarkusJarProcess;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * The packaged edge app ({@code edge/target/quarkus-app/quarkus-run.jar}) as a child process ({@link QuarkusJarProcess}),
 * plus the HTTP calls the tests make to it. DNS and HTTP listen on ports the process picks itself ({@code port=0});
 * both are read from its log lines, so no port is guessed free and then raced for.
 */
final class EdgeProcess implements AutoCloseable {
    private static final Path JAR = Path.of(System.getProperty("meshdns.edge.jar",
            QuarkusJarProcess.repositoryRoot().resolve("edge/target/quarkus-app/quarkus-run.jar").toString()));
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final QuarkusJarProcess process;

    private EdgeProcess(QuarkusJarProcess process) {
        this.process = process;
    }

    /** Starts the jar on loopback (HTTP and DNS on ports of its choosing) with the given {@code key=value} properties. */
    static EdgeProcess start(List<String> properties) throws IOException {
        return new EdgeProcess(QuarkusJarProcess.jar("edge", JAR).jvmOptions(QuarkusJarProcess.FAST_START_JVM)
                .property("quarkus.http.host", "127.0.0.1").property("quarkus.http.port", "0").property("meshdns.dns.port", "0")
                .properties(properties).start());
    }

    int dnsPort(Duration timeout) throws InterruptedException {
        return process.awaitPort(LogLines.DNS_SERVICE_PORT, timeout);
    }

    String httpUrl(Duration timeout) throws InterruptedException {
        return "http://127.0.0.1:" + process.awaitPort(LogLines.QUARKUS_HTTP_PORT, timeout);
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
        HttpResponse<Stream<String>> resp = HTTP.send(req, HttpResponse.BodyHandlers.ofLines());
        try (Stream<String> lines = resp.body()) {
            return resp.statusCode() + " " + lines.findFirst().orElse("");
        }
    }

    /** Waits for the process to exit on its own and returns its exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        return process.awaitExit(timeout);
    }

    String output() {
        return process.output();
    }

    @Override
    public void close() {
        process.close();
    }
}
