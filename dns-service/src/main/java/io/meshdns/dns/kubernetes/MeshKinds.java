package io.meshdns.dns.kubernetes;

import io.meshdns.model.Kind;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The one table of record builders: which {@link KindRecords} reads each catalog {@link Kind}, and the order
 * they compile in. A Kubernetes kind the nodes answer from is one builder and one row here; a {@link Kind}
 * without a builder stops the class from loading (every compile test fails at once).
 */
final class MeshKinds {
    /**
     * In compile order: a builder may read what a builder above it put in the index during the same operation
     * (ServiceEntry hosts read which names Services hold, and a Service appearing re-checks the host it shadows).
     */
    static final List<KindRecords<?>> IN_COMPILE_ORDER = everyKindOnce(List.of(
            new NamespaceRecords(),
            new ServiceNameRecords(),
            new PodRecords(),
            new ServiceEntryRecords()));

    private MeshKinds() {
    }

    private static List<KindRecords<?>> everyKindOnce(List<KindRecords<?>> builders) {
        Set<Kind> seen = EnumSet.noneOf(Kind.class);
        for (KindRecords<?> builder : builders) {
            for (Kind kind : builder.kinds()) {
                if (!seen.add(kind)) throw new IllegalStateException(kind + " has two record builders");
            }
        }
        for (Kind kind : Kind.values()) {
            if (!seen.contains(kind)) throw new IllegalStateException(kind + " has no record builder in MeshKinds");
        }
        return builders;
    }
}
