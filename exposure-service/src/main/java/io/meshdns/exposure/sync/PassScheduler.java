package io.meshdns.exposure.sync;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * When passes run: a periodic pass every interval, an event-triggered one after the debounce, and
 * on failure exponential backoff (1 s doubling, capped at the interval). One thread, so passes never overlap.
 */
final class PassScheduler implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(PassScheduler.class);

    private final ScheduledExecutorService executor;
    private final Duration interval;
    private final BooleanSupplier pass;
    private final Object lock = new Object();
    private ScheduledFuture<?> pending;
    private int consecutiveFailures;
    private volatile long passStartedNanos;

    /** @param pass one pass; returns false when it failed (then backoff applies) */
    PassScheduler(Duration interval, BooleanSupplier pass) {
        this.interval = interval;
        this.pass = pass;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "meshdns-exposure-sync");
            t.setDaemon(true);
            return t;
        });
    }

    ScheduledExecutorService executor() {
        return executor;
    }

    void start() {
        long ms = interval.toMillis();
        executor.scheduleWithFixedDelay(this::run, ms, ms, TimeUnit.MILLISECONDS);
    }

    /** Schedules a pass after {@code delay} unless one is already due sooner (this is the debounce). */
    void trigger(Duration delay) {
        synchronized (lock) {
            if (executor.isShutdown()) return;
            if (pending != null && !pending.isDone() && pending.getDelay(TimeUnit.MILLISECONDS) <= delay.toMillis()) return;
            if (pending != null) pending.cancel(false);
            pending = executor.schedule(this::run, delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    void execute(Runnable r) {
        executor.execute(r);
    }

    /** How long the pass now running has run; zero when none runs (liveness). */
    Duration running() {
        long started = passStartedNanos;
        return started == 0 ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - started);
    }

    boolean alive() {
        return !executor.isShutdown();
    }

    private void run() {
        boolean ok;
        passStartedNanos = System.nanoTime();
        try {
            ok = pass.getAsBoolean();
        } catch (RuntimeException e) {
            LOG.errorf(e, "reconcile pass failed");
            ok = false;
        } finally {
            passStartedNanos = 0;
        }
        if (ok) {
            consecutiveFailures = 0;
        } else {
            consecutiveFailures++;
            trigger(Duration.ofMillis(Math.min(interval.toMillis(), 1000L << Math.min(consecutiveFailures - 1, 16))));
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
