package io.meshdns.dns.nodelocal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Runs commands with {@link ProcessBuilder}: the argument list as it is, no shell, a 10 s limit (a
 * command still running then is killed and reported as failed, exit code -1).
 */
final class ProcessCommandRunner implements CommandRunner {
    private static final long TIMEOUT_SECONDS = 10;

    @Override
    public Result run(Command command) {
        try {
            Process p = new ProcessBuilder(command.argv()).redirectErrorStream(true).start();
            try (OutputStream in = p.getOutputStream()) {
                in.write(command.stdin().getBytes(StandardCharsets.UTF_8));
            }
            // The commands print little (an nft table listing at most), so reading to the end cannot block the exit.
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, output + "\n(killed after " + TIMEOUT_SECONDS + " s)");
            }
            return new Result(p.exitValue(), output);
        } catch (IOException e) {
            return new Result(-1, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted");
        }
    }
}
