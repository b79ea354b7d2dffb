package io.meshdns.dns.server;

import java.util.Optional;

/**
 * A capability that decides where the listeners bind instead of {@code meshdns.dns.bind-address} (the
 * node-local address, set up on an interface of its own before the listeners open). At most one such
 * bean may say so.
 */
public interface BindAddressSource {
    /** The address to bind, or empty to leave {@code meshdns.dns.bind-address} in charge. Throws on bad config. */
    Optional<String> bindAddress();
}
