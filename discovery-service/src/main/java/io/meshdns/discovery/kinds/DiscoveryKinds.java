package io.meshdns.discovery.kinds;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.discovery.translate.ObjectNames;
import io.meshdns.discovery.translate.Translation;
import io.meshdns.model.Kind;
import io.meshdns.model.ObjectRef;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The kind table: every Kubernetes kind discovery reads, one row each, from the {@link KindDefinition} classes of
 * this package (listed by javac, see {@link KindDefinition}), in {@link Kind}'s declaration order. The cluster watchers
 * start an informer per enabled row in that order, the manifest files and the informers translate through it, and
 * discovery's RBAC rules for the kinds are generated from it (RbacFromKindsTest), so a kind's versions, informer,
 * translation and switch are written once. Adding a kind: ARCHITECTURE.md ("A Kubernetes kind").
 */
public final class DiscoveryKinds {
    private DiscoveryKinds() {
    }

    /** In {@link Kind}'s order; a {@link Kind} without a row, or with two, stops the class from loading. */
    public static final List<DiscoveryKind> ALL = everyKindOnce(KindDefinitionImplementations.all());

    private static List<DiscoveryKind> everyKindOnce(List<KindDefinition> definitions) {
        Map<Kind, DiscoveryKind> rows = new EnumMap<>(Kind.class);
        for (KindDefinition definition : definitions) {
            DiscoveryKind row = definition.row();
            if (rows.put(row.kind(), row) != null) {
                throw new IllegalStateException(row.kind() + " has two rows (KindDefinition classes in kinds/)");
            }
        }
        for (Kind kind : Kind.values()) {
            if (!rows.containsKey(kind)) {
                throw new IllegalStateException(kind + " has no KindDefinition class in kinds/ (or the module was compiled"
                        + " in part: rebuild it, the list is written at compile time)");
            }
        }
        List<DiscoveryKind> ordered = new ArrayList<>(rows.values());
        ordered.sort(Comparator.comparing(DiscoveryKind::kind));
        return List.copyOf(ordered);
    }

    /** The row {@code obj} belongs to, or null for a kind discovery does not read. */
    public static DiscoveryKind of(HasMetadata obj) {
        for (DiscoveryKind k : ALL) {
            if (k.matches(obj)) return k;
        }
        return null;
    }

    /** The row of {@code kind}. */
    public static DiscoveryKind of(Kind kind) {
        for (DiscoveryKind k : ALL) {
            if (k.kind() == kind) return k;
        }
        throw new IllegalArgumentException("no row for " + kind);
    }

    /** Translates any object; an unsupported kind is {@link Translation.Skipped} with a null ref. */
    public static Translation translate(String cluster, HasMetadata obj) {
        DiscoveryKind k = of(obj);
        if (k == null) return new Translation.Skipped(null, "unsupported kind " + obj.getApiVersion() + "/" + obj.getKind());
        return k.translator().apply(cluster, obj);
    }

    public static Kind kindOf(HasMetadata obj) {
        DiscoveryKind k = of(obj);
        return k == null ? null : k.kind();
    }

    /**
     * The ref an object has (or had), null for an unknown kind or a missing name: used for deletes, which must not
     * depend on the object being valid. Namespaces are cluster-scoped (an empty namespace, as in their entries).
     */
    public static ObjectRef refOf(String cluster, HasMetadata obj) {
        Kind kind = kindOf(obj);
        if (kind == null) return null;
        String name = ObjectNames.name(obj);
        if (name == null) return null;
        return new ObjectRef(cluster, kind, kind == Kind.NAMESPACE ? "" : ObjectNames.namespaceOf(obj), name);
    }
}
