package io.meshdns.dns.server;

import java.util.List;

/**
 * A capability that decides where the listeners bind instead of {@code meshdns.dns.bind-address} (the
 * node-local addresses, set up on an interface of its own before the listeners open): UDP and TCP are
 * bound on every one of them, on the same port. At most one such bean may say so.
 */
public interface BindAddressSource {
    /** The addresses to bind (literals), or empty to leave {@code meshdns.dns.bind-address} in charge. Throws on bad config. */
    List<String> bindAddresses();
}
