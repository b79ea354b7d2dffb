package io.meshdns.model.startup;

/**
 * Framework log lines that say nothing an operator can act on, dropped by each service's console filter.
 *
 * <p>Quarkus's HTTP server runs one verticle per I/O thread, and with {@code quarkus.http.limits.max-connections} set
 * each verticle registers the gauge {@code vertx.http.connections.current} again. Every registration reads the same
 * shared connection count, so the first one is the gauge and the others change nothing; Micrometer still warned
 * "This Gauge has been already registered" on every start.
 */
public final class FrameworkNoise {
    private FrameworkNoise() {
    }

    /** True for a record the console should not show. */
    public static boolean isNoise(String message) {
        return message != null && message.startsWith("This Gauge has been already registered")
                && message.contains("name='vertx.http.connections.current'");
    }
}
