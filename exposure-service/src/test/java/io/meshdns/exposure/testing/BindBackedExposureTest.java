package io.meshdns.exposure.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.exposure.sync.ExposureController;
import io.meshdns.testsupport.dns.BindServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;
import java.util.List;

/**
 * The base of a {@code @QuarkusTest} of the whole exposure-service publishing into the BIND9 of
 * {@link BindTestResource}, the fabric8 CRUD server as the cluster (the subclass carries those annotations): each
 * test starts once the controller leads with every source synced, and reconciles directly (no timers) until
 * {@code dig} shows what it expects.
 */
public abstract class BindBackedExposureTest {
    @Inject
    protected KubernetesClient client;

    @Inject
    protected ExposureController controller;

    protected BindServer bind() {
        return BindTestResource.bind();
    }

    @BeforeEach
    void ready() {
        RunningExposure.awaitReady(controller);
    }

    /** Reconciles directly until dig shows the expected answer (informer caches fill asynchronously). */
    protected void reconcileUntil(String name, String type, List<String> expected) {
        RunningExposure.reconcileUntil(controller, Duration.ofMillis(100), expected, () -> bind().dig(name, type));
    }
}
