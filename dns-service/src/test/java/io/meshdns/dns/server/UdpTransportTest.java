package io.meshdns.dns.server;

import io.meshdns.dns.InvalidConfigException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UdpTransportTest {
    private static final UdpTransport.Availability EVERYTHING = new UdpTransport.Availability(null, null, true);
    private static final Throwable NO_URING = new UnsupportedOperationException("io_uring_setup: Operation not permitted");
    private static final Throwable NO_EPOLL = new UnsatisfiedLinkError("no netty_transport_native_epoll_x86_64");

    @Test
    void autoIsVertxsOwnTransport() {
        assertEquals(new UdpTransport.Choice(UdpTransport.EPOLL, null), UdpTransport.choose("auto", EVERYTHING));
        assertEquals(new UdpTransport.Choice(UdpTransport.NIO, null),
                UdpTransport.choose("auto", new UdpTransport.Availability(null, null, false)));
    }

    @Test
    void anAvailableChoiceIsTakenAsIs() {
        for (UdpTransport t : UdpTransport.values()) {
            UdpTransport.Choice c = UdpTransport.choose(" " + t.key().toUpperCase() + " ", EVERYTHING);
            assertEquals(t, c.transport());
            assertNull(c.fallback());
        }
    }

    @Test
    void ioUringThatCannotLoadFallsBackToEpollWithOneLineNamingTheKeyAndTheCause() {
        UdpTransport.Choice c = UdpTransport.choose("io_uring", new UdpTransport.Availability(null, new RuntimeException("wrapped", NO_URING), true));
        assertEquals(UdpTransport.EPOLL, c.transport());
        assertTrue(c.fallback().startsWith("meshdns.dns.transport=io_uring: io_uring is not available here"), c.fallback());
        assertTrue(c.fallback().contains("UnsupportedOperationException: io_uring_setup: Operation not permitted"), c.fallback());
        assertTrue(c.fallback().endsWith("the UDP listener uses epoll"), c.fallback());
        assertTrue(!c.fallback().contains("\n"), "one line");
    }

    @Test
    void withoutAnyNativeTransportTheFallbackIsNio() {
        UdpTransport.Availability none = new UdpTransport.Availability(NO_EPOLL, NO_URING, false);
        assertEquals(UdpTransport.NIO, UdpTransport.choose("io_uring", none).transport());
        UdpTransport.Choice epoll = UdpTransport.choose("epoll", none);
        assertEquals(UdpTransport.NIO, epoll.transport());
        assertTrue(epoll.fallback().contains("meshdns.dns.transport=epoll") && epoll.fallback().contains("UnsatisfiedLinkError"),
                epoll.fallback());
    }

    @Test
    void anUnknownValueFailsNamingTheKey() {
        InvalidConfigException e = assertThrows(InvalidConfigException.class, () -> UdpTransport.choose("iouring", EVERYTHING));
        assertTrue(e.getMessage().contains("meshdns.dns.transport"), e.getMessage());
        assertTrue(e.getMessage().contains("'iouring'"), e.getMessage());
    }
}
