package io.meshdns.exposure.provider;

/**
 * A provider call failed. {@link #rejected()} tells a refusal of the data itself (a record the zone
 * cannot hold, an HTTP 4xx, an UPDATE refused) from the backend being unreachable: only the former
 * is worth splitting a batch over, to publish everything but the one bad RRset.
 */
public class ProviderException extends Exception {

    private final boolean rejected;

    public ProviderException(String message) {
        this(message, null, false);
    }

    public ProviderException(String message, Throwable cause) {
        this(message, cause, false);
    }

    private ProviderException(String message, Throwable cause, boolean rejected) {
        super(message, cause);
        this.rejected = rejected;
    }

    /** The backend (or the provider before sending) refused this data; retrying it unchanged will fail again. */
    public static ProviderException rejected(String message) {
        return new ProviderException(message, null, true);
    }

    public static ProviderException rejected(String message, Throwable cause) {
        return new ProviderException(message, cause, true);
    }

    public boolean rejected() {
        return rejected;
    }
}
