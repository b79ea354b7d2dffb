package io.meshdns.exposure.provider;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/**
 * The checks every provider factory makes on its own keys, written once so that each provider fails a bad value the
 * same way: an IllegalArgumentException whose one-line message starts with the key.
 */
public final class ProviderKeys {

    private ProviderKeys() {
    }

    /** The value of a key {@code provider} cannot do without; absent or blank fails. */
    public static String required(String key, Optional<String> value, String provider) {
        return value.filter(v -> !v.isBlank()).orElseThrow(() ->
                new IllegalArgumentException(key + ": required with meshdns.exposure.provider=" + provider));
    }

    /**
     * The value as an http:// or https:// URL with a host. A URL may carry a password in its user-info part, so a bad
     * value is never echoed as written: the message shows the parsed URL without its user info, or, when it does not
     * parse, only why.
     */
    public static URI httpUrl(String key, String value) {
        URI uri;
        try {
            uri = URI.create(value.trim());
        } catch (IllegalArgumentException e) {
            // the parser's reason without what follows its colon: the value itself
            throw new IllegalArgumentException(key + ": not a URL (" + e.getMessage().replaceAll(":.*", "") + ")");
        }
        String scheme = uri.getScheme();
        if (!("http".equals(scheme) || "https".equals(scheme)) || uri.getHost() == null) {
            throw new IllegalArgumentException(key + ": '" + withoutUserInfo(uri) + "' is not an http:// or https:// URL");
        }
        return uri;
    }

    /** Fails naming the key unless its value passes a provider's own check; {@code problem} says what is wrong with it. */
    public static void check(boolean valid, String key, String problem) {
        if (!valid) throw new IllegalArgumentException(key + ": " + problem);
    }

    /** A TCP or UDP port number. */
    public static int port(String key, int port) {
        if (port < 1 || port > 65535) throw new IllegalArgumentException(key + ": port " + port + " out of range 1..65535");
        return port;
    }

    /** The URL without its user-info part: what may be printed, and what requests go to when the user info is sent apart. */
    public static URI withoutUserInfo(URI uri) {
        if (uri.getRawUserInfo() == null) return uri;
        try {
            return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), uri.getQuery(), uri.getFragment());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("the URL cannot be split from its credentials", e);
        }
    }
}
