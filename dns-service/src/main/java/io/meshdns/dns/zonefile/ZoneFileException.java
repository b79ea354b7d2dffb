package io.meshdns.dns.zonefile;

/** A zone or hosts file that cannot be loaded; the message names the file (and line when known). */
public final class ZoneFileException extends Exception {
    public ZoneFileException(String message) {
        super(message);
    }

    public ZoneFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
