package io.meshdns.exposure.e2e;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;

/** {@link ProviderEndToEnd} with meshdns.exposure.provider=coredns against its real backend. */
@QuarkusTest
@TestProfile(Backends.CorednsProfile.class)
@WithKubernetesTestServer(crud = true)
class CorednsEndToEndTest extends ProviderEndToEnd {
}
