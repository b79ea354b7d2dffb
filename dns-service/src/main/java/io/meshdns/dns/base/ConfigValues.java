package io.meshdns.dns.base;

import io.meshdns.dns.InvalidConfigException;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses configuration values the same way for every capability: a value that does not parse, or is out of
 * range, fails the start with an {@link InvalidConfigException} naming the exact key.
 */
public final class ConfigValues {
    private ConfigValues() {
    }

    /** Only {@code true} or {@code false}: a typo must not silently mean false. */
    public static boolean parseBoolean(String key, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("true")) {
            return true;
        }
        if (v.equals("false")) {
            return false;
        }
        throw new InvalidConfigException(key, "'" + value + "' is neither true nor false");
    }

    public static int parseInt(String key, String value, int min, int max) {
        int parsed;
        try {
            parsed = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new InvalidConfigException(key, "'" + value + "' is not a number");
        }
        if (parsed < min || parsed > max) {
            throw new InvalidConfigException(key, parsed + " is outside " + min + ".." + max);
        }
        return parsed;
    }

    /** The CIDR blocks of a list key (blank entries skipped); the first that does not parse fails naming the key. */
    public static List<Cidr> parseCidrs(String key, List<String> entries) {
        List<Cidr> cidrs = new ArrayList<>();
        for (String entry : entries) {
            if (entry.isBlank()) {
                continue;
            }
            try {
                cidrs.add(Cidr.parse(entry));
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigException(key, e.getMessage());
            }
        }
        return List.copyOf(cidrs);
    }

    /** Accepts {@code 10s}, {@code 500ms}, {@code 2m}, a bare number of seconds, or ISO-8601 ({@code PT10S}). */
    public static Duration parseDuration(String key, String value) {
        return parseDuration(key, value, false);
    }

    /** {@link #parseDuration(String, String)}, where {@code zeroAllowed} also accepts 0 (off). */
    public static Duration parseDuration(String key, String value, boolean zeroAllowed) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        Duration d;
        try {
            if (v.startsWith("pt") || v.startsWith("p")) {
                d = Duration.parse(v.toUpperCase(Locale.ROOT));
            } else if (v.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            } else if (v.endsWith("s")) {
                d = Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            } else if (v.endsWith("m")) {
                d = Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            } else if (v.endsWith("h")) {
                d = Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
            } else {
                d = Duration.ofSeconds(Long.parseLong(v));
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new InvalidConfigException(key, "'" + value + "' is not a duration (examples: 10s, 500ms, 2m)");
        }
        if (d.isNegative() || (d.isZero() && !zeroAllowed)) {
            throw new InvalidConfigException(key, "'" + value + "' must be " + (zeroAllowed ? "0 or more" : "positive"));
        }
        return d;
    }
}
