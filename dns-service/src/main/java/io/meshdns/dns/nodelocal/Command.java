package io.meshdns.dns.nodelocal;

import java.util.List;

/** One program to run: its arguments (never a shell line) and what to feed it on stdin (may be empty). */
public record Command(List<String> argv, String stdin) {
    public Command {
        argv = List.copyOf(argv);
        stdin = stdin == null ? "" : stdin;
    }

    static Command of(String... argv) {
        return new Command(List.of(argv), "");
    }

    @Override
    public String toString() {
        return String.join(" ", argv);
    }
}
