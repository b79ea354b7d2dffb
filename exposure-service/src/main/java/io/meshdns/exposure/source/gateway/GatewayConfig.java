package io.meshdns.exposure.source.gateway;

import io.smallrye.config.ConfigMapping;
import java.util.Optional;

/** ExternalDNS's --gateway-name, --gateway-namespace, --gateway-label-filter: which Gateways the route sources follow. */
@ConfigMapping(prefix = "meshdns.exposure.gateway")
public interface GatewayConfig {

    /** Only routes attached to a Gateway of this name. */
    Optional<String> name();

    /** Only Gateways in this namespace. */
    Optional<String> namespace();

    /** A label selector (k=v, k!=v, k, !k; comma-separated) the Gateways must match. */
    Optional<String> labelFilter();
}
