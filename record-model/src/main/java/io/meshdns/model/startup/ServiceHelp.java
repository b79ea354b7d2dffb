package io.meshdns.model.startup;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** {@code --help} / {@code -h} on a service jar: its main keys from a text resource, instead of starting it. */
public final class ServiceHelp {
    private ServiceHelp() {
    }

    public static boolean requested(String... args) {
        return Arrays.stream(args).anyMatch(a -> a.equals("--help") || a.equals("-h") || a.equals("-help"));
    }

    /** The help text shipped as {@code resource} beside {@code owner}'s class. */
    public static String text(Class<?> owner, String resource) {
        try (InputStream in = owner.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("help text " + resource + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
