package io.meshdns.exposure.e2e;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import io.meshdns.exposure.sync.ExposureController;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Readiness means something: informers synced but the provider never answered = not ready (503). */
@QuarkusTest
@TestProfile(NotReadyTest.UnreachableWebhook.class)
@WithKubernetesTestServer(crud = true)
class NotReadyTest {

    public static class UnreachableWebhook implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            int closed;
            try (ServerSocket s = new ServerSocket(0)) {
                closed = s.getLocalPort(); // closed again: nothing listens there
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return Map.of("meshdns.exposure.provider", "webhook", "meshdns.exposure.webhook.url", "http://127.0.0.1:" + closed,
                    "meshdns.exposure.webhook.max-attempts", "1");
        }
    }

    @Inject
    ExposureController controller;

    @Test
    void informersSyncedButNoProviderAnswerIsNotReady() {
        await().atMost(Duration.ofSeconds(30)).until(() -> controller.sourcesReady() && controller.isLeader());
        controller.reconcileNow();
        given().get("/q/health/ready").then().statusCode(503)
                .body(containsString("\"informers-synced\": true")).body(containsString("\"providers-answered\": false"));
        given().get("/q/health/live").then().statusCode(200);
    }
}
