package io.meshdns.model.startup;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Holds back what the framework writes to standard error while the service starts, so that a start
 * failed by a bad value shows {@link ConfigProblem#line()} first instead of the framework's own
 * multi-line report of it. Released as soon as the service runs (everything held is written then), or
 * on a failure that is not a configuration problem.
 */
public final class StartupConsole {
    private static final PrintStream REAL = System.err;
    private static final ByteArrayOutputStream HELD = new ByteArrayOutputStream();
    private static volatile boolean holding;

    private StartupConsole() {
    }

    public static synchronized void hold() {
        if (holding) {
            return;
        }
        holding = true;
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[]{(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (StartupConsole.class) {
                    if (holding) {
                        HELD.write(b, off, len);
                    } else {
                        REAL.write(b, off, len);
                    }
                }
            }

            @Override
            public void flush() {
                REAL.flush();
            }
        }, true, StandardCharsets.UTF_8));
    }

    /** Writes everything held to the real standard error and passes everything after it straight on. */
    public static synchronized void release() {
        if (!holding) {
            return;
        }
        holding = false;
        REAL.write(HELD.toByteArray(), 0, HELD.size());
        REAL.flush();
        HELD.reset();
        System.setErr(REAL);
    }

    /** Forgets what was held (it said the same as the one line the caller prints instead). */
    public static synchronized void discard() {
        HELD.reset();
        holding = false;
        System.setErr(REAL);
    }

    /** The real standard error, for the one line. */
    public static PrintStream err() {
        return REAL;
    }

    public static boolean stackTraceRequested() {
        return Boolean.parseBoolean(System.getProperty("meshdns.stack-trace"))
                || "1".equals(System.getenv("MESHDNS_STACK_TRACE")) || "true".equalsIgnoreCase(System.getenv("MESHDNS_STACK_TRACE"));
    }
}
