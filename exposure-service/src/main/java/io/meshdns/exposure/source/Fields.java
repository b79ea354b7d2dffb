package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reading a custom resource's fields without a model class: a missing or mistyped field reads as empty, so a
 * malformed object yields nothing rather than an exception (the API server's schema is not trusted to be there).
 */
public final class Fields {

    private Fields() {
    }

    /** {@code spec}, {@code status}, … of a generic resource. */
    public static Map<String, Object> top(GenericKubernetesResource r, String field) {
        return map(r.getAdditionalProperties().get(field));
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    public static List<Object> list(Object o) {
        return o instanceof List<?> l ? (List<Object>) l : List.of();
    }

    /** A list of scalars as strings; nulls dropped. */
    public static List<String> strings(Object o) {
        var out = new ArrayList<String>();
        for (Object x : list(o)) if (x != null && !(x instanceof Map<?, ?>) && !(x instanceof List<?>)) out.add(x.toString());
        return out;
    }

    /** A string-to-string map (labels, selectors); other values are read as their text. */
    public static Map<String, String> stringMap(Object o) {
        var out = new java.util.TreeMap<String, String>();
        map(o).forEach((k, v) -> {
            if (v != null) out.put(k, v.toString());
        });
        return out;
    }

    public static String str(Object o, String def) {
        return o == null || o.toString().isEmpty() ? def : o.toString();
    }
}
