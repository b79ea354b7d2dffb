package io.meshdns.exposure.provider;

import io.meshdns.exposure.endpoint.Endpoint;
import java.util.List;

/** A DNS backend: reads every RRset of the managed zones and applies record operations to them. */
public interface Provider {

    /** Every RRset in the managed zones (TXT included, one target per TXT record); no ownership logic. */
    List<Endpoint> records() throws ProviderException;

    /** Applies the operations; an exception means some may not have been applied (the next reconcile repairs). */
    void apply(List<RecordOp> ops) throws ProviderException;

    /** Short name for logs and metrics, e.g. "rfc2136 127.0.0.1:5300". */
    String describe();
}
