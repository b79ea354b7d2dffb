package io.meshdns.exposure.plan;

import io.meshdns.exposure.endpoint.Endpoint;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which names this instance manages, with ExternalDNS's semantics: a name matches an include or
 * exclude domain when it equals it or is below it; a domain written with a leading dot
 * (".example.org") matches only names below it. When a regex filter is set it replaces the include
 * and exclude lists, and the exclusion regex removes names from it. No filter at all manages every name.
 */
public record DomainFilter(List<String> include, List<String> exclude, Optional<Pattern> regex,
                           Optional<Pattern> regexExclusion) {

    public static final DomainFilter ALL = new DomainFilter(List.of(), List.of(), Optional.empty(), Optional.empty());

    public DomainFilter {
        include = include.stream().map(DomainFilter::normalizeDomain).filter(s -> !s.isEmpty()).toList();
        exclude = exclude.stream().map(DomainFilter::normalizeDomain).filter(s -> !s.isEmpty()).toList();
    }

    public boolean matches(String name) {
        String n = Endpoint.normalizeName(name);
        if (regex.isPresent() || regexExclusion.isPresent()) {
            boolean in = regex.map(r -> r.matcher(n).find()).orElse(true);
            boolean out = regexExclusion.map(r -> r.matcher(n).find()).orElse(false);
            return in && !out;
        }
        boolean in = include.isEmpty() || include.stream().anyMatch(d -> under(n, d));
        boolean out = exclude.stream().anyMatch(d -> under(n, d));
        return in && !out;
    }

    private static boolean under(String name, String domain) {
        if (domain.startsWith(".")) {
            return name.endsWith(domain);
        }
        return name.equals(domain) || name.endsWith("." + domain);
    }

    private static String normalizeDomain(String d) {
        String t = d.trim().toLowerCase();
        boolean subOnly = t.startsWith(".");
        String n = Endpoint.normalizeName(subOnly ? t.substring(1) : t);
        return n.isEmpty() ? "" : (subOnly ? "." + n : n);
    }
}
