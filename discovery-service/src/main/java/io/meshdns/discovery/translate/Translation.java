package io.meshdns.discovery.translate;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.meshdns.model.CatalogEntry;
import io.meshdns.model.ObjectRef;

/**
 * The outcome of translating one Kubernetes object. {@link Accepted} carries the catalog entry;
 * {@link Skipped} means the object is valid but gives no records (a pod without an IP): the caller
 * removes any entry it had for the ref; {@link Rejected} means the object is malformed: the caller
 * logs it, may record a Kubernetes Event, and keeps the last good entry (a bad object never deletes
 * anything).
 */
public sealed interface Translation {

    /** The ref of the object, or null when even its name is missing. */
    ObjectRef ref();

    record Accepted(CatalogEntry entry) implements Translation {
        public ObjectRef ref() {
            return entry.ref();
        }
    }

    record Skipped(ObjectRef ref, String why) implements Translation {
    }

    /**
     * {@code o} of kind {@code kindName} is malformed: named by its ref, or (a name too bad for a ref) by its cluster and
     * namespace.
     */
    static Translation rejected(ObjectRef ref, String kindName, String cluster, HasMetadata o, String reason) {
        String id = ref != null ? ref.toString() : kindName + " " + cluster + "/" + (o.getMetadata() == null ? "?" : o.getMetadata().getNamespace() + "/?");
        return new Rejected(ref, kindName + " " + id, reason);
    }

    /** {@code object} names the object as a human reads it (kind cluster/namespace/name). */
    record Rejected(ObjectRef ref, String object, String reason) implements Translation {
        @Override
        public String toString() {
            return "rejected " + object + ": " + reason;
        }
    }
}
