package io.meshdns.discovery.translate;

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

    /** {@code object} names the object as a human reads it (kind cluster/namespace/name). */
    record Rejected(ObjectRef ref, String object, String reason) implements Translation {
        @Override
        public String toString() {
            return "rejected " + object + ": " + reason;
        }
    }
}
