package io.meshdns.exposure.provider.webhook;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read into memory up to a cap: above it the subscription is cancelled (the JDK client
 * then closes the connection) and the body fails with {@link TooLarge}, so a provider that answers with
 * hundreds of megabytes costs at most the cap. A {@code Content-Length} above the cap fails before any
 * body byte is read.
 */
final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {

    /** The response was larger than the cap. */
    static final class TooLarge extends IOException {
        final long cap;

        TooLarge(long cap) {
            super("response larger than " + cap + " bytes");
            this.cap = cap;
        }
    }

    private final long cap;
    private final boolean refuseAtOnce;
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    private Flow.Subscription subscription;

    private CappedBody(long cap, boolean refuseAtOnce) {
        this.cap = cap;
        this.refuseAtOnce = refuseAtOnce;
    }

    static HttpResponse.BodyHandler<byte[]> handler(long cap) {
        return info -> new CappedBody(cap, info.headers().firstValueAsLong("Content-Length").orElse(-1) > cap);
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (refuseAtOnce) {
            s.cancel();
            result.completeExceptionally(new TooLarge(cap));
        } else {
            s.request(Long.MAX_VALUE);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (result.isDone()) return;
        for (ByteBuffer b : items) {
            if ((long) buffer.size() + b.remaining() > cap) {
                subscription.cancel();
                result.completeExceptionally(new TooLarge(cap));
                return;
            }
            byte[] chunk = new byte[b.remaining()];
            b.get(chunk);
            buffer.writeBytes(chunk);
        }
    }

    @Override
    public void onError(Throwable t) {
        result.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
        result.complete(buffer.toByteArray());
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }
}
