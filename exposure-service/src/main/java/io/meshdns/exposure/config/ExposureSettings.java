package io.meshdns.exposure.config;

import io.meshdns.exposure.endpoint.Endpoint;
import io.meshdns.exposure.plan.DomainFilter;
import io.meshdns.exposure.plan.Policy;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderContext;
import io.meshdns.exposure.provider.ProviderFactory;
import io.meshdns.exposure.provider.Providers;
import io.meshdns.exposure.registry.ClaimCodec;
import io.meshdns.exposure.registry.TxtNameMapper;
import io.meshdns.exposure.source.SourceSettings;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@link ExposureConfig} checked and turned into the values the pure parts need. Every failure names
 * the config key, and happens at start.
 */
public record ExposureSettings(String ownerId, Policy policy, DomainFilter filter, boolean dryRun,
                               SourceSettings sources, Set<String> enabledSources, TxtNameMapper txtNames,
                               List<Provider> providers, Set<String> adoptOwners, ClaimCodec claims,
                               Set<String> eventsEmit) {

    /** The reasons --events-emit takes. */
    public static final Set<String> RECORD_EVENTS = Set.of("RecordReady", "RecordDeleted", "RecordError");

    /** With the built-in sources as the known ones. */
    public static ExposureSettings from(ExposureConfig c, List<ProviderFactory> factories) {
        return from(c, factories, io.meshdns.exposure.source.ObjectTranslation.byName(
                io.meshdns.exposure.source.ObjectTranslation.builtIn()).keySet());
    }

    /**
     * @param factories    every registered provider kind; the one {@code meshdns.exposure.provider} names builds the targets
     * @param knownSources the names of every source bean; {@code meshdns.exposure.sources} may name only these
     */
    public static ExposureSettings from(ExposureConfig c, List<ProviderFactory> factories, Set<String> knownSources) {
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
        Set<String> sources = Set.copyOf(c.sources());
        for (String s : sources) {
            if (!knownSources.contains(s)) {
                throw new IllegalArgumentException("meshdns.exposure.sources: unknown source '" + s + "' ("
                        + String.join(", ", new java.util.TreeSet<>(knownSources)) + ")");
            }
        }
        c.defaultDomain().ifPresent(d -> {
            if (!d.matches("[A-Za-z0-9.-]+\\.?")) {
                throw new IllegalArgumentException("meshdns.exposure.default-domain: '" + d + "' is not a domain name");
            }
        });

        c.defaultTtl().ifPresent(t -> {
            if (t < 0 || t > io.meshdns.exposure.endpoint.Endpoint.MAX_TTL) {
                throw new IllegalArgumentException("meshdns.exposure.default-ttl: " + t + " out of range 0.." + io.meshdns.exposure.endpoint.Endpoint.MAX_TTL);
            }
        });
        var adopt = new java.util.TreeSet<String>();
        for (String o : c.adoptOwners().orElse(List.of())) {
            String t = o.trim();
            if (t.isEmpty()) continue;
            if (t.equals(owner) || t.contains(",") || t.contains("=")) {
                throw new IllegalArgumentException("meshdns.exposure.adopt-owners: '" + t + "' must be another owner id (free of ',' and '=')");
            }
            adopt.add(t);
        }
        var events = new java.util.TreeSet<String>();
        for (String e : c.eventsEmit().orElse(List.of())) {
            if (e.isBlank()) continue;
            if (!RECORD_EVENTS.contains(e.trim())) {
                throw new IllegalArgumentException("meshdns.exposure.events-emit: '" + e.trim() + "' is not one of " + new java.util.TreeSet<>(RECORD_EVENTS));
            }
            events.add(e.trim());
        }
        ClaimCodec claims = ClaimCodec.of(c.txtEncryptEnabled(), c.txtEncryptAesKey());
        var context = new ProviderContext(owner, filter, c.dryRun(), c.defaultTtl());
        List<Provider> providers = Providers.create(factories, c.provider(), context);
        return new ExposureSettings(owner, policy, filter, c.dryRun(),
                new SourceSettings(c.defaultDomain().map(d -> d.endsWith(".") ? d.substring(0, d.length() - 1) : d),
                        c.publishClusterIp(), c.fqdnTemplate(), defaultTargets(c), c.forceDefaultTargets(),
                        c.annotationPrefix().filter(p -> !p.isBlank()).map(io.meshdns.exposure.source.AnnotationPrefix::check).orElse(""),
                        c.combineFqdnAnnotation()),
                sources, new TxtNameMapper(c.txtPrefix().orElse(""), c.txtSuffix().orElse("")), List.copyOf(providers), Set.copyOf(adopt), claims, Set.copyOf(events));
    }

    /** IPs (canonical) or host names; anything else fails naming the key. */
    private static List<String> defaultTargets(ExposureConfig c) {
        var out = new java.util.ArrayList<String>();
        for (String raw : c.defaultTargets().orElse(List.of())) {
            String t = raw.trim();
            if (t.isEmpty()) continue;
            try {
                out.add(Endpoint.isIpLiteral(t) ? Endpoint.normalizeTarget(t.contains(":") ? "AAAA" : "A", t) : Endpoint.normalizeTarget("CNAME", t));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("meshdns.exposure.default-targets: '" + t + "' is neither an address nor a host name");
            }
        }
        if (c.forceDefaultTargets() && out.isEmpty()) {
            throw new IllegalArgumentException("meshdns.exposure.force-default-targets: needs meshdns.exposure.default-targets");
        }
        return out;
    }

    private static Optional<Pattern> regex(String key, Optional<String> value) {
        try {
            return value.filter(v -> !v.isBlank()).map(Pattern::compile);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(key + ": invalid regular expression: " + e.getDescription());
        }
    }
}
