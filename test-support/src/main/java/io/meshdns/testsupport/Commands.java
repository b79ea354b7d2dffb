package io.meshdns.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Runs an outside tool (podman, kubectl, ip …) for a test and hands back what it printed. */
public final class Commands {
    private Commands() {
    }

    /**
     * Runs {@code command} to completion within {@code timeout}, stdout and stderr together (through a file, so a
     * chatty tool never blocks on a full pipe), and fails with the command and its output unless it exits 0.
     */
    public static String run(Duration timeout, String... command) throws Exception {
        Path output = Files.createTempFile("meshdns-command", ".out");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("timed out after " + timeout + ": " + String.join(" ", command));
            }
        } finally {
            p.destroyForcibly();
        }
        String text = Files.readString(output);
        Files.deleteIfExists(output);
        if (p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + "\n" + text + " ==> exit " + p.exitValue() + ", expected 0");
        }
        return text;
    }
}
