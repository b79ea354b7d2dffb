package io.meshdns.testsupport;

import java.util.regex.Pattern;

/** The log lines that tell a test which port a service picked ({@code port=0}); group 1 is the port. */
public final class LogLines {
    /** dns-service's UDP and TCP listeners are up (any bind address). */
    public static final Pattern DNS_SERVICE_PORT = Pattern.compile("dns-service listening on \\S+ port (\\d+)");
    /** Quarkus's HTTP server is up on loopback ({@code quarkus.http.host=127.0.0.1}). */
    public static final Pattern QUARKUS_HTTP_PORT = Pattern.compile("Listening on: http://127\\.0\\.0\\.1:(\\d+)");

    private LogLines() {
    }
}
