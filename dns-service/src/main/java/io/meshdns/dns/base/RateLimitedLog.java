package io.meshdns.dns.base;

import org.jboss.logging.Logger;

import java.util.concurrent.atomic.AtomicLong;

/**
 * At most one WARN line per {@code interval} for one kind of event, saying how many were not logged since the last
 * line; never a stack trace (that goes to DEBUG). A client can send the same bad packet thousands of times a second:
 * one line per packet would flood the log, and a stack trace per packet would cost more than answering it.
 */
public final class RateLimitedLog {
    private final Logger log;
    private final long intervalNanos;
    private final AtomicLong next = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger log, java.time.Duration interval) {
        this.log = log;
        this.intervalNanos = interval.toNanos();
    }

    /** Logs {@code message} and the error's type and text, unless a line went out less than the interval ago. */
    public void warn(String message, Throwable error) {
        long now = System.nanoTime();
        long due = next.get();
        if ((due != Long.MIN_VALUE && now - due < 0) || !next.compareAndSet(due, now + intervalNanos)) {
            suppressed.incrementAndGet();
            if (log.isDebugEnabled()) log.debug(message, error);
            return;
        }
        long skipped = suppressed.getAndSet(0);
        log.warnf("%s: %s%s", message, error == null ? "no error given" : error.toString(),
                skipped == 0 ? "" : " (" + skipped + " more like it not logged since the last line)");
        if (log.isDebugEnabled() && error != null) log.debug(message, error);
    }
}
