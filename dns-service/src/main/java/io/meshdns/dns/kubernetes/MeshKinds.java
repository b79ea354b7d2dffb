package io.meshdns.dns.kubernetes;

import io.meshdns.model.Kind;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The record builders in compile order: every {@link KindRecords} of this package (listed at compile time, see
 * {@link KindRecords}), each reading its catalog {@link Kind}s. A builder compiles after the builders of the kinds it
 * names in {@link KindRecords#compiledAfter} (it reads what they put in the index during the same operation); among
 * builders free to go, the one whose first kind comes first in {@link Kind}'s declaration order goes first, so the
 * order is the same on every node. A {@link Kind} without a builder, or with two, or builders waiting on each other,
 * stop the class from loading (every compile test fails at once).
 */
final class MeshKinds {
    /** Namespaces, service names, pods, then ServiceEntry hosts (which read the service names). */
    static final List<KindRecords<?>> IN_COMPILE_ORDER = inCompileOrder(KindRecordsImplementations.all());

    private MeshKinds() {
    }

    static List<KindRecords<?>> inCompileOrder(List<KindRecords<?>> builders) {
        Map<Kind, KindRecords<?>> builderOf = new EnumMap<>(Kind.class);
        for (KindRecords<?> builder : builders) {
            for (Kind kind : builder.kinds()) {
                if (builderOf.put(kind, builder) != null) throw new IllegalStateException(kind + " has two record builders");
            }
        }
        for (Kind kind : Kind.values()) {
            if (!builderOf.containsKey(kind)) {
                throw new IllegalStateException(kind + " has no record builder (a KindRecords class in kubernetes/; or the"
                        + " module was compiled in part: rebuild it, the list is written at compile time)");
            }
        }
        List<KindRecords<?>> waiting = new ArrayList<>(builders);
        waiting.sort(Comparator.comparing(MeshKinds::firstKind));
        List<KindRecords<?>> ordered = new ArrayList<>();
        while (!waiting.isEmpty()) {
            KindRecords<?> next = null;
            for (KindRecords<?> builder : waiting) {
                if (readyAfter(builder, ordered, builderOf)) {
                    next = builder;
                    break;
                }
            }
            if (next == null) throw new IllegalStateException("record builders wait on each other: " + waiting.stream().map(MeshKinds::name).toList());
            waiting.remove(next);
            ordered.add(next);
        }
        return List.copyOf(ordered);
    }

    private static boolean readyAfter(KindRecords<?> builder, List<KindRecords<?>> done, Map<Kind, KindRecords<?>> builderOf) {
        for (Kind kind : builder.compiledAfter()) {
            KindRecords<?> before = builderOf.get(kind);
            if (before == builder) throw new IllegalStateException(name(builder) + " compiles after its own kind " + kind);
            if (!done.contains(before)) return false;
        }
        return true;
    }

    private static Kind firstKind(KindRecords<?> builder) {
        Set<Kind> kinds = builder.kinds();
        return kinds.stream().min(Comparator.naturalOrder())
                .orElseThrow(() -> new IllegalStateException(name(builder) + " reads no kind"));
    }

    private static String name(KindRecords<?> builder) {
        return builder.getClass().getSimpleName();
    }
}
