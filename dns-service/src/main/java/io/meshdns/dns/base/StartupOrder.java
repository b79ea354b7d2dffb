package io.meshdns.dns.base;

/**
 * The order in which dns-service's parts observe Quarkus's {@code StartupEvent} and {@code ShutdownEvent}
 * (lower runs first), in one place so no capability counts its priority from another's constant.
 */
public final class StartupOrder {
    private StartupOrder() {
    }

    /** Configuration checks that must fail the start before any file is read or socket opened. */
    public static final int VALIDATE = 10;
    /** The snapshot store starts every record source: the first query already sees the zones. */
    public static final int RECORD_SOURCES = 1900;
    /** The node wiring (link-local interface, NOTRACK rules): after the sources, right before the bind. */
    public static final int NODE_WIRING = 1990;
    /** The DNS listeners bind; {@link ListenersOpened} is fired when they have. */
    public static final int LISTENERS = 2000;

    /** Shutdown: the listeners drain and close first; what they need (the node wiring) runs after. */
    public static final int LISTENERS_CLOSE = 1000;
    /** Shutdown of the node wiring, after the listeners have closed. */
    public static final int NODE_WIRING_CLOSE = 2000;
}
