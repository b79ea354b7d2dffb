package io.meshdns.dnsjava.nativeimage.deployment;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The catalog's wire types, found from the messages discovery sends (a snapshot, a delta, a watch event, a cluster's
 * status) by walking what Jackson walks: a record's components, the type arguments of its lists and maps, and a
 * sealed interface's permitted records (a {@code CatalogEntry} per Kubernetes kind). Only types of the wire model's
 * own package are followed. Jackson reads all of them by reflection, so a native image must register every one; a
 * kind added to record-model is found here without a line anywhere else. Pure apart from loading the classes.
 */
final class WireModelTypes {
    /** The wire model's package: nothing outside it is followed or registered. */
    static final String PACKAGE = "io.meshdns.model";
    /** What discovery sends and the nodes read (see record-model's {@code WireFormat}). */
    static final List<String> ROOTS = List.of(PACKAGE + ".CatalogSnapshot", PACKAGE + ".CatalogDelta",
            PACKAGE + ".WatchEvent", PACKAGE + ".ClusterStatus");

    private WireModelTypes() {
    }

    /** Every wire type reachable from {@link #ROOTS} through {@code loader}, by name; empty when the model is not there. */
    static Optional<Set<String>> of(ClassLoader loader) {
        Deque<Class<?>> todo = new ArrayDeque<>();
        for (String root : ROOTS) {
            try {
                todo.add(Class.forName(root, false, loader));
            } catch (ClassNotFoundException e) {
                return Optional.empty();
            }
        }
        Set<String> found = new TreeSet<>();
        while (!todo.isEmpty()) {
            Class<?> type = todo.poll();
            if (!type.getPackageName().equals(PACKAGE) || !found.add(type.getName())) continue;
            if (type.isRecord()) {
                for (RecordComponent component : type.getRecordComponents()) follow(component.getGenericType(), todo);
            }
            if (type.isSealed()) todo.addAll(List.of(type.getPermittedSubclasses()));
        }
        return Optional.of(found);
    }

    private static void follow(Type type, Deque<Class<?>> todo) {
        if (type instanceof Class<?> c) {
            todo.add(c.isArray() ? c.getComponentType() : c);
        } else if (type instanceof ParameterizedType p) {
            follow(p.getRawType(), todo);
            for (Type argument : p.getActualTypeArguments()) follow(argument, todo);
        } else if (type instanceof GenericArrayType a) {
            follow(a.getGenericComponentType(), todo);
        } else if (type instanceof WildcardType w) {
            for (Type bound : w.getUpperBounds()) follow(bound, todo);
        }
    }
}
