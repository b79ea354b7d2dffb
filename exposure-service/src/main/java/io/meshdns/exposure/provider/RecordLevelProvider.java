package io.meshdns.exposure.provider;

import java.util.List;

/**
 * A provider that can also add and delete single records atomically (RFC 2136). The registry uses
 * this for multi-owner RRsets, so two owners writing at once never erase each other; a provider
 * without it gets the same operations folded into whole-RRset {@link io.meshdns.exposure.plan.Changes}.
 */
public interface RecordLevelProvider extends Provider {

    /** Applies the operations in order; an exception means some may not have been applied (the next pass repairs). */
    void applyRecordOps(List<RecordOp> ops) throws ProviderException;

    /**
     * Applies groups of operations in order; a provider that writes in several messages keeps each
     * group (one RRset and its ownership record) inside one message, so an interruption between
     * messages never leaves a record without its claim (which would make it foreign for good).
     */
    default void applyGroups(List<List<RecordOp>> groups) throws ProviderException {
        var ops = new java.util.ArrayList<RecordOp>();
        groups.forEach(ops::addAll);
        applyRecordOps(ops);
    }
}
