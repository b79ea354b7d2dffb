package io.meshdns.exposure.health;

import io.meshdns.exposure.sync.ExposureController;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

/**
 * {@code /q/health/ready}: up only once the informers have synced (before that an empty cache
 * would read as "publish nothing") and every provider target has answered a read (a pass, or the
 * probe a replica that does not lead makes). {@code /q/health/live}: the sync thread runs and no
 * pass has been stuck for more than ten intervals plus five minutes.
 */
public final class ExposureHealth {

    private ExposureHealth() {
    }

    @Readiness
    @ApplicationScoped
    public static class Ready implements HealthCheck {
        private final ExposureController controller;

        public Ready(ExposureController controller) {
            this.controller = controller;
        }

        @Override
        public HealthCheckResponse call() {
            boolean sources = controller.sourcesReady();
            boolean providers = controller.providersAnswered();
            return HealthCheckResponse.named("exposure")
                    .status(sources && providers)
                    .withData("informers-synced", sources)
                    .withData("providers-answered", providers)
                    .withData("leader", controller.isLeader())
                    .build();
        }
    }

    @Liveness
    @ApplicationScoped
    public static class Live implements HealthCheck {
        private final ExposureController controller;

        public Live(ExposureController controller) {
            this.controller = controller;
        }

        @Override
        public HealthCheckResponse call() {
            return HealthCheckResponse.named("exposure-sync").status(controller.syncAlive()).build();
        }
    }
}
