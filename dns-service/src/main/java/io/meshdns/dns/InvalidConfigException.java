package io.meshdns.dns;

/**
 * Thrown at start when a configuration value is unusable. The message always starts with the exact
 * key (for example {@code meshdns.dns.port}) so an operator sees at once what to fix.
 */
public final class InvalidConfigException extends RuntimeException {
    private final String key;

    public InvalidConfigException(String key, String problem) {
        super(key + ": " + problem);
        this.key = key;
    }

    public InvalidConfigException(String key, String problem, Throwable cause) {
        super(key + ": " + problem, cause);
        this.key = key;
    }

    public String key() {
        return key;
    }
}
