package io.meshdns.dns.kubernetes;

import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import org.xbill.DNS.Name;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Namespaces have no records of their own (a namespace without Services has no name: NXDOMAIN); they only
 * tell the index the namespace is known, for the placeholder and insecure pod names. Pure.
 */
final class NamespaceRecords implements KindRecords<String> {
    @Override
    public Set<Kind> kinds() {
        return Set.of(Kind.NAMESPACE);
    }

    @Override
    public Collection<String> contributors(CatalogEntry entry) {
        return List.of();
    }

    @Override
    public String id(String key) {
        return "namespace " + key;
    }

    @Override
    public List<IndexCounts.Fact> indexFacts(CatalogEntry entry, CompileInputs in) {
        return entry instanceof CatalogEntry.Namespace n ? List.of(new IndexCounts.NamespaceExists(n.name())) : List.of();
    }

    @Override
    public void build(String key, List<CatalogEntry> entries, CompileInputs in, Predicate<Name> serviceNames, Contribution out) {
        // no contributors: nothing to build
    }
}
