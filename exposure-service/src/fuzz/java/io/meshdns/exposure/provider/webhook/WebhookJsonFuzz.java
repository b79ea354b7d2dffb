package io.meshdns.exposure.provider.webhook;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import io.meshdns.exposure.endpoint.Endpoint;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A webhook provider's response bodies as {@link WebhookProvider} reads them: the negotiation document (domain
 * filter) and the endpoint list of {@code GET /records} and {@code POST /adjustendpoints}. Acceptable outcomes are
 * the ones the provider turns into a {@code ProviderException} (not JSON, not an array, an invalid filter) or
 * endpoints, entries that do not fit being skipped; every endpoint read must write back to the same endpoint (what
 * the next POST sends). Any other throwable is a finding.
 */
class WebhookJsonFuzz {
    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void body(byte[] body) {
        JsonNode n;
        try {
            n = EndpointJson.MAPPER.readTree(body);
        } catch (IOException e) {
            return; // "response is not JSON"
        }
        if (n == null) return;
        try {
            EndpointJson.domainFilter(n);
        } catch (RuntimeException e) {
            // negotiate(): "the negotiated domain filter is invalid" (a ProviderException)
        }
        List<String> skipped = new ArrayList<>();
        List<Endpoint> read;
        try {
            read = EndpointJson.readAll(n, skipped);
        } catch (IllegalArgumentException e) {
            return; // records(): a ProviderException
        }
        for (Endpoint e : read) {
            Endpoint again = EndpointJson.read(EndpointJson.write(e));
            if (!again.equals(e)) throw new AssertionError(e + " writes back as " + again);
        }
    }
}
