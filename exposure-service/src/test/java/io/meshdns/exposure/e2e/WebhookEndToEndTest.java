package io.meshdns.exposure.e2e;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;

/** {@link ProviderEndToEnd} with meshdns.exposure.provider=webhook against its real backend. */
@QuarkusTest
@TestProfile(Backends.WebhookProfile.class)
@WithKubernetesTestServer(crud = true)
class WebhookEndToEndTest extends ProviderEndToEnd {
}
