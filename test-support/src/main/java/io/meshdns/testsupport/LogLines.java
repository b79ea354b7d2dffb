package io.meshdns.testsupport;

import java.util.regex.Pattern;

/** Log lines tests wait for: which port a service picked ({@code port=0}; group 1 is the port), and the end of the start. */
public final class LogLines {
    /** dns-service's UDP and TCP listeners are up (any bind address). */
    public static final Pattern DNS_SERVICE_PORT = Pattern.compile("dns-service listening on \\S+ port (\\d+)");
    /** Quarkus's HTTP server is up on loopback ({@code quarkus.http.host=127.0.0.1}). */
    public static final Pattern QUARKUS_HTTP_PORT = Pattern.compile("Listening on: http://127\\.0\\.0\\.1:(\\d+)");
    /** Quarkus finished starting (every startup observer ran); group 1 is the start time in seconds. */
    public static final Pattern QUARKUS_STARTED = Pattern.compile("\\) started in ([0-9.]+)s\\.");

    private LogLines() {
    }
}
