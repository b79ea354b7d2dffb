package io.meshdns.it.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The tests' GET to a service's HTTP port, over one client they share (connections to loopback fail within 2 s). */
public final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private Http() {
    }

    /** GET {@code url}, with {@code Authorization: Bearer <bearer>} unless {@code bearer} is null. */
    public static HttpResponse<String> get(String url, String bearer, Duration timeout) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(timeout);
        if (bearer != null) b.header("Authorization", "Bearer " + bearer);
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
