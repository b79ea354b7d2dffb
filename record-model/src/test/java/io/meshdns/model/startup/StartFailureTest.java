package io.meshdns.model.startup;

import org.junit.jupiter.api.Test;

import java.net.BindException;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StartFailureTest {
    @Test
    void namesTheFailureInsideTheFrameworksWrapper() {
        Throwable cause = new IllegalStateException("'ip link add meshdns0 type dummy' failed (exit 2): RTNETLINK answers: File exists");
        Throwable failure = new RuntimeException("Failed to start quarkus", cause);
        assertEquals("meshdns: start failed: IllegalStateException: 'ip link add meshdns0 type dummy' failed (exit 2): "
                + "RTNETLINK answers: File exists", StartFailure.of(failure).line());
    }

    @Test
    void addsTheRootCauseWhenTheNamedFailureDoesNotSayIt() {
        Throwable root = new BindException("Too many open files");
        Throwable named = new IllegalStateException("cannot bind upstream UDP sockets", new ExecutionException(root));
        assertEquals("meshdns: start failed: IllegalStateException: cannot bind upstream UDP sockets (BindException: Too many open files)",
                StartFailure.of(new RuntimeException("Failed to start quarkus", named)).line());
    }

    @Test
    void aFailureWithoutMessageIsNamedByWhereItWasThrown() {
        NullPointerException npe = new NullPointerException();
        npe.setStackTrace(new StackTraceElement[]{new StackTraceElement("io.meshdns.X", "start", "X.java", 12)});
        String line = StartFailure.of(new RuntimeException(npe)).line();
        assertEquals("meshdns: start failed: NullPointerException: at io.meshdns.X.start(X.java:12)", line);
    }

    @Test
    void aMultiLineMessageKeepsItsFirstLine() {
        String line = StartFailure.of(new IllegalStateException("first\nsecond")).line();
        assertTrue(line.endsWith(": first"), line);
    }

    @Test
    void aFirstLineThatAnnouncesTheNextKeepsIt() {
        String line = StartFailure.of(new IllegalStateException("Configuration validation failed:\n\tSRCFG00099: something")).line();
        assertTrue(line.endsWith(": Configuration validation failed: SRCFG00099: something"), line);
    }
}
