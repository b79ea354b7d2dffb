package io.meshdns.dns.dynamic;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs Debian's DNS tools (nsupdate, knsupdate, kdig) with a script on stdin. */
final class Tools {
    record Result(int exit, String output) {
    }

    static Result run(List<String> command, String stdin) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("did not finish: " + command);
        }
        return new Result(p.exitValue(), out);
    }

    private Tools() {
    }
}
