package io.meshdns.kit;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RenderedCacheTest {
    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void manyCallersShareOneRenderingOffTheEventLoop() throws Exception {
        AtomicInteger renders = new AtomicInteger();
        AtomicLong version = new AtomicLong(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Boolean> onEventLoop = new ArrayList<>();
        RenderedCache<String> cache = new RenderedCache<>(vertx, version::get, () -> {
            synchronized (onEventLoop) {
                onEventLoop.add(Context.isOnEventLoopThread());
            }
            renders.incrementAndGet();
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "page " + version.get();
        });
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            answers.add(cache.get());
        }
        version.set(2); // a change during the rendering waits for it to finish
        answers.add(cache.get());
        release.countDown();
        for (Future<String> f : answers) {
            assertEquals("page 2", f.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS));
        }
        assertEquals(1, renders.get(), "one rendering served all 201 callers");
        assertFalse(onEventLoop.get(0), "rendered on a worker thread");

        assertEquals("page 2", cache.get().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertEquals(2, renders.get(), "a newer version is rendered once the previous rendering is done");
        cache.get().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(2, renders.get(), "the same version within a second: the kept rendering");
        Thread.sleep(RenderedCache.MAX_AGE_MILLIS + 50);
        cache.get().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertTrue(renders.get() == 3, "older than a second: rendered again");
    }
}
