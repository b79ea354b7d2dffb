package io.meshdns.exposure.provider;

import io.meshdns.exposure.endpoint.Endpoint;

/**
 * One change to a zone, as the registry asks a {@link Provider} for it. ExternalDNS hands providers
 * whole-RRset changes only; multi-owner RRsets need record-level adds and deletes as well, so that
 * two owners writing at once never erase each other's records.
 */
public sealed interface RecordOp {

    Endpoint endpoint();

    /** Delete the whole RRset (name, type), then add every target of the endpoint (RFC 2136 3.4.2.3 + 3.4.2.2). */
    record ReplaceRRset(Endpoint endpoint) implements RecordOp {
    }

    /** Delete the whole RRset (name, type); the endpoint's targets are ignored. */
    record DeleteRRset(Endpoint endpoint) implements RecordOp {
    }

    /** Add these records to the RRset (adding an existing record is a no-op in RFC 2136). */
    record AddRecords(Endpoint endpoint) implements RecordOp {
    }

    /** Delete exactly these records from the RRset (RFC 2136 3.4.2.4), leaving the others. */
    record DeleteRecords(Endpoint endpoint) implements RecordOp {
    }
}
