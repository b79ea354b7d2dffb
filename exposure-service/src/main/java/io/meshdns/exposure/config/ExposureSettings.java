package io.meshdns.exposure.config;

import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.provider.rfc2136.Rfc2136Provider;
import io.meshdns.exposure.provider.rfc2136.TsigKeys;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.source.SourceSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.xbill.DNS.TSIG;

/**
 * {@link ExposureConfig} checked and turned into the values the pure parts need. Every failure names
 * the config key, and happens at start.
 */
public record ExposureSettings(String ownerId, Policy policy, DomainFilter filter, boolean dryRun,
                               SourceSettings sources, Set<String> enabledSources, TxtNameMapper txtNames,
                               List<Rfc2136Provider.Settings> targets) {

    public static ExposureSettings from(ExposureConfig c) {
        String owner = c.ownerId().trim();
        if (owner.isEmpty() || owner.contains(",") || owner.contains("=")) {
            throw new IllegalArgumentException("meshdns.exposure.owner-id: must be non-empty and free of ',' and '='");
        }
        Policy policy = Policy.parse("meshdns.exposure.policy", c.policy());
        DomainFilter filter = new DomainFilter(c.domainFilters().orElse(List.of()), c.excludeDomains().orElse(List.of()),
                regex("meshdns.exposure.regex-domain-filter", c.regexDomainFilter()),
                regex("meshdns.exposure.regex-domain-exclusion", c.regexDomainExclusion()));
        if (c.interval().isNegative() || c.interval().isZero()) {
            throw new IllegalArgumentException("meshdns.exposure.interval: must be positive");
        }
        if (c.defaultTtl() < 1) {
            throw new IllegalArgumentException("meshdns.exposure.default-ttl: must be at least 1");
        }
        Set<String> sources = Set.copyOf(c.sources());
        for (String s : sources) {
            if (!Set.of("service", "ingress", "crd").contains(s)) {
                throw new IllegalArgumentException("meshdns.exposure.sources: unknown source '" + s + "' (service, ingress, crd)");
            }
        }
        c.defaultDomain().ifPresent(d -> {
            if (!d.matches("[A-Za-z0-9.-]+\\.?")) {
                throw new IllegalArgumentException("meshdns.exposure.default-domain: '" + d + "' is not a domain name");
            }
        });

        var r = c.rfc2136();
        List<String> zones = r.zones().orElse(List.of());
        if (zones.isEmpty()) {
            throw new IllegalArgumentException("meshdns.exposure.rfc2136.zones: at least one zone is required");
        }
        Optional<TSIG> tsig = Optional.empty();
        if (r.tsigKeyName().isPresent() != r.tsigSecret().isPresent()) {
            throw new IllegalArgumentException("meshdns.exposure.rfc2136.tsig-key-name and meshdns.exposure.rfc2136.tsig-secret: set both or neither");
        }
        if (r.tsigKeyName().isPresent()) {
            tsig = Optional.of(TsigKeys.create(r.tsigKeyName().get(), r.tsigSecret().get(), r.tsigAlgorithm()));
        }
        var targets = new ArrayList<Rfc2136Provider.Settings>();
        switch (c.provider().trim()) {
            case "rfc2136" -> {
                String host = r.host().filter(h -> !h.isBlank()).orElseThrow(() ->
                        new IllegalArgumentException("meshdns.exposure.rfc2136.host: required with meshdns.exposure.provider=rfc2136"));
                targets.add(new Rfc2136Provider.Settings(host, port("meshdns.exposure.rfc2136.port", r.port()), zones, tsig, r.timeout(), c.defaultTtl()));
            }
            case "builtin" -> {
                List<String> list = c.builtin().targets().orElse(List.of());
                if (list.isEmpty()) {
                    throw new IllegalArgumentException("meshdns.exposure.builtin.targets: at least one host:port is required with meshdns.exposure.provider=builtin");
                }
                if (tsig.isEmpty()) {
                    throw new IllegalArgumentException("meshdns.exposure.rfc2136.tsig-key-name: the builtin provider requires TSIG (dns-service refuses unsigned UPDATEs)");
                }
                for (String t : list) {
                    int colon = t.lastIndexOf(':');
                    if (colon <= 0) {
                        throw new IllegalArgumentException("meshdns.exposure.builtin.targets: '" + t + "' is not host:port");
                    }
                    int port;
                    try {
                        port = Integer.parseInt(t.substring(colon + 1));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("meshdns.exposure.builtin.targets: '" + t + "' has no numeric port");
                    }
                    String host = t.substring(0, colon).replace("[", "").replace("]", "");
                    targets.add(new Rfc2136Provider.Settings(host, port("meshdns.exposure.builtin.targets", port), zones, tsig, r.timeout(), c.defaultTtl()));
                }
            }
            default -> throw new IllegalArgumentException("meshdns.exposure.provider: '" + c.provider() + "' is not rfc2136 or builtin");
        }
        return new ExposureSettings(owner, policy, filter, c.dryRun(),
                new SourceSettings(c.defaultDomain().map(d -> d.endsWith(".") ? d.substring(0, d.length() - 1) : d),
                        c.publishClusterIp(), c.fqdnTemplate()),
                sources, new TxtNameMapper(c.txtPrefix().orElse(""), c.txtSuffix().orElse("")), List.copyOf(targets));
    }

    private static int port(String key, int port) {
        if (port < 1 || port > 65535) throw new IllegalArgumentException(key + ": port " + port + " out of range 1..65535");
        return port;
    }

    private static Optional<Pattern> regex(String key, Optional<String> value) {
        try {
            return value.filter(v -> !v.isBlank()).map(Pattern::compile);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(key + ": invalid regular expression: " + e.getDescription());
        }
    }
}
