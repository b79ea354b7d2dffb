package io.meshdns.dns.kubernetes;

import io.meshdns.collect.Collected;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;
import org.xbill.DNS.Name;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * How the entries of one or more catalog kinds become records: which contributors (one service name, one pod,
 * one ServiceEntry host, ...) an entry feeds, and what one contributor builds from every entry feeding it.
 * Pure and stateless; the incremental bookkeeping (who feeds what, what a delta touched, filing the output) is
 * {@link MeshZoneCompiler}'s and the same for every kind. {@link MeshKinds} collects every class of this package
 * that implements this (javac lists them at compile time: {@code KindRecordsImplementations}, written by
 * {@link Collected}'s processor) and puts them in compile order: a new kind's builder is its class alone.
 *
 * @param <K> a contributor's key within this builder; keys compile in their natural order, so that a whole
 *            compile is the same on every node
 */
@Collected
interface KindRecords<K extends Comparable<K>> {
    /** The catalog kinds this builder reads (a kind has exactly one builder). */
    Set<Kind> kinds();

    /**
     * The kinds whose builders must compile before this one in an operation, because this one reads what they put in
     * the index during it (ServiceEntry hosts read which names Services hold); none by default. {@link MeshKinds}
     * orders the builders by it.
     */
    default Set<Kind> compiledAfter() {
        return Set.of();
    }

    /** The contributors {@code entry} feeds; empty when it only tells the index something ({@link #indexFacts}). */
    Collection<K> contributors(CatalogEntry entry);

    /** The contributor's name in the records table, unique across builders ("service shop/web", "pod ...", "host ..."). */
    String id(K key);

    /** What {@code entry} tells the index directly (counted across entries); none by default. */
    default List<IndexCounts.Fact> indexFacts(CatalogEntry entry, CompileInputs in) {
        return List.of();
    }

    /**
     * Builds one contributor into {@code out} from every entry now feeding it (empty: it has none left, and
     * builds nothing unless it must say so to the index).
     *
     * @param serviceNames whether a Kubernetes Service holds a name, as compiled so far in this operation
     *                     (a builder compiled after {@link Kind#SERVICE}'s, see {@link #compiledAfter}, sees this
     *                     operation's)
     */
    void build(K key, List<CatalogEntry> entries, CompileInputs in, Predicate<Name> serviceNames, Contribution out);

    /** This builder's contributor whose records depend on whether a Service holds {@code serviceName}; null if none. */
    default K shadowedBy(Name serviceName) {
        return null;
    }
}
