package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.Namespace;
import io.meshdns.discovery.translate.ObjectNames;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.Kind;

import java.util.List;

import static io.meshdns.discovery.translate.ObjectNames.name;
import static io.meshdns.discovery.translate.ObjectNames.namespaceOf;
import static io.meshdns.discovery.translate.Translation.rejected;

/** core/v1 Namespace: a namespace known in a cluster (for the placeholder and insecure pod names). Always read. */
public final class NamespaceKind implements KindDefinition {
    @Override
    public DiscoveryKind row() {
        return new DiscoveryKind(Kind.NAMESPACE, "Namespace", "namespaces", List.of("v1"), Namespace.class,
                (c, version, resync) -> c.namespaces().runnableInformer(resync),
                (cluster, o) -> translate(cluster, (Namespace) o), null);
    }

    /** Pure: a namespace entry, or the rejection of a name the API server would refuse. */
    public static Translation translate(String cluster, Namespace ns) {
        String badName = ObjectNames.problem(ns, ObjectNames.Rule.DNS_1123_LABEL, false);
        if (badName != null) return rejected(null, "Namespace", cluster, ns, badName);
        String name = name(ns);
        return new Translation.Accepted(new CatalogEntry.Namespace(cluster, name));
    }
}
