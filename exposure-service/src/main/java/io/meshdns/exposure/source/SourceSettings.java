package io.meshdns.exposure.source;

import java.util.Optional;

/**
 * What the sources need from configuration.
 *
 * @param defaultDomain  meshdns.exposure.default-domain: where {@code meshdns.io/expose} publishes
 * @param fqdnTemplate   meshdns.exposure.fqdn-template: {{name}}, {{namespace}} placeholders; when set,
 *                       every Service and Ingress is considered, not only annotated ones
 */
public record SourceSettings(Optional<String> defaultDomain, boolean publishClusterIp, Optional<String> fqdnTemplate) {
}
