package io.meshdns.exposure.sync;

import io.meshdns.exposure.source.SourceOutput;

/** Where desired state comes from: the cluster's informers, or a folder of manifests. */
interface DesiredSources extends AutoCloseable {

    /** Starts watching; returns once the first complete view is there. */
    void start();

    /** True once the first complete view is there (before that, an empty view is not "nothing wanted"). */
    boolean started();

    /** Translates the current view into desired endpoints and problems. */
    SourceOutput collect();

    @Override
    void close();
}
