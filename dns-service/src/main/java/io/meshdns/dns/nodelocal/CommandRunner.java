package io.meshdns.dns.nodelocal;

/** Runs one {@link Command}: the seam between the rule set (pure) and the machine. */
public interface CommandRunner {
    /** Exit code and everything the command printed (stdout and stderr together). */
    record Result(int exitCode, String output) {
        public boolean ok() {
            return exitCode == 0;
        }
    }

    Result run(Command command);
}
