package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.HashMap;
import java.util.Map;

/**
 * ExternalDNS's {@code --annotation-prefix}: with a prefix other than {@code external-dns.kubernetes.io/}, only
 * annotations under that prefix are ExternalDNS's, the standard and alpha ones are not. Done once, where objects enter
 * the translation: an object carrying any of those annotations reaches its source as a copy whose custom-prefixed
 * annotations also read as standard ones and whose own standard and alpha ones are gone, so no source knows the prefix.
 * The informer's object is never changed.
 */
public final class AnnotationPrefix {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private AnnotationPrefix() {
    }

    /** Fails naming the key unless it is a DNS-subdomain-like prefix ending in '/' (ExternalDNS's rule, and Kubernetes'). */
    public static String check(String prefix) {
        String p = prefix.trim();
        if (!p.endsWith("/") || !p.substring(0, p.length() - 1).matches("[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?")) {
            throw new IllegalArgumentException("meshdns.exposure.annotation-prefix: '" + prefix
                    + "' must be a lower-case DNS name followed by '/', like external-dns.kubernetes.io/");
        }
        return p;
    }

    /** The object as its source should see it under {@code prefix} ("" or the standard prefix: unchanged). */
    public static HasMetadata apply(HasMetadata o, String prefix) {
        if (prefix.isEmpty() || prefix.equals(Annotations.PREFIX)) return o;
        Map<String, String> ann = o.getMetadata().getAnnotations();
        if (ann == null || ann.keySet().stream().noneMatch(k -> k.startsWith(prefix) || k.startsWith(Annotations.PREFIX)
                || k.startsWith(Annotations.ALPHA_PREFIX))) {
            return o;
        }
        var rewritten = new HashMap<String, String>();
        ann.forEach((k, v) -> {
            if (k.startsWith(prefix)) rewritten.put(Annotations.PREFIX + k.substring(prefix.length()), v);
        });
        // the custom keys stay as they are too, so an annotation filter written with them still matches
        ann.forEach((k, v) -> {
            if (!k.startsWith(Annotations.PREFIX) && !k.startsWith(Annotations.ALPHA_PREFIX)) rewritten.putIfAbsent(k, v);
        });
        HasMetadata copy = SERIALIZATION.clone(o);
        copy.getMetadata().setAnnotations(rewritten);
        return copy;
    }
}
