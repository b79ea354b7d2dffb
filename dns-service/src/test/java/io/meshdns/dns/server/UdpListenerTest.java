package io.meshdns.dns.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertTrue;

class UdpListenerTest {

    /**
     * The recvmmsg buffer must come from the event loop's thread cache. One bigger than the cache holds
     * (32 KiB by default) went to the arena on every read and, once released, freed its emptied 4 MiB
     * chunk, so the next read allocated and zeroed a new chunk: 9% of the server's CPU at 50k QPS.
     * Allocates and releases the read buffer as an event loop thread does and counts arena allocations.
     */
    @Test
    void recvmmsgBufferIsServedFromTheThreadCache() throws Exception {
        PooledByteBufAllocator allocator = new PooledByteBufAllocator(true);
        int readBuffer = UdpListener.MAX_QUERY_DATAGRAM * UdpListener.RECVMMSG_BATCH;
        AtomicLong arenaAllocations = new AtomicLong();
        Thread eventLoopLike = new FastThreadLocalThread(() -> {
            for (int i = 0; i < 100; i++) {
                ByteBuf buffer = allocator.directBuffer(readBuffer);
                buffer.release();
            }
            arenaAllocations.set(allocator.metric().directArenas().stream().mapToLong(PoolArenaMetric::numNormalAllocations).sum());
        });
        eventLoopLike.start();
        eventLoopLike.join();
        assertTrue(arenaAllocations.get() <= 1,
                "a " + readBuffer + " B read buffer went to the arena " + arenaAllocations.get() + " times in 100 reads");
    }
}
