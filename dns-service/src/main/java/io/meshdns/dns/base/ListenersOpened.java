package io.meshdns.dns.base;

/**
 * Fired (synchronously, on the starting thread) once the DNS listeners are bound: work that the first
 * answer does not need observes it instead of running before the bind.
 */
public record ListenersOpened(String bindAddress, int port) {
}
