package io.meshdns.dns.base;

import java.util.concurrent.ThreadFactory;

/**
 * The one thread of a background executor (file polling, catalog work, node-local checks, dynamic updates): named,
 * so a thread dump says whose it is, and a daemon, so an executor whose shutdown never ran cannot keep the process
 * alive at exit.
 */
public final class DaemonThreads {
    private DaemonThreads() {
    }

    /** Makes daemon threads called {@code name}. */
    public static ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
