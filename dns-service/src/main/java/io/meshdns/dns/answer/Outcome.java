package io.meshdns.dns.answer;

import org.xbill.DNS.Message;

/** What the {@link Answerer} decided for one query. */
public sealed interface Outcome {

    /**
     * Which rule produced an answer: read by operator tooling that explains an answer, and by tests.
     * The Answerer sets the first four; the mesh hook's rewrites are named by the query handler.
     */
    enum Rule {
        /** A protocol-level answer: FORMERR, BADVERS, REFUSED for a class or a transfer over UDP. */
        PROTOCOL,
        /** Records (or NXDOMAIN/NODATA) from one of our zones. */
        ZONE,
        /** Non-authoritative exact-name data: hosts files, ServiceEntry hosts outside our zones, local PTRs. */
        OVERLAY,
        /** The name exists but is not exported to the client's namespace: answered as if it did not. */
        NOT_EXPORTED,
        /** The mesh hook synthesized the answer (placeholder, insecure pod name). */
        MESH_SYNTHESIZED,
        /** The mesh hook chased or rewrote the answer (autopath, ExternalName target, multi-cluster spread). */
        MESH_ADJUSTED,
        /** A wildcard ServiceEntry host answered before forwarding. */
        WILDCARD_HOST,
        /** The forwarder's answer. */
        FORWARDED
    }

    /**
     * A complete response. {@code zone} is the label of the zone that produced it (for metrics),
     * or {@code "."} when no zone did (hosts data, protocol errors); {@code rule} says why.
     */
    record Answer(Message response, String zone, Rule rule) implements Outcome {
        public Answer(Message response, String zone) {
            this(response, zone, Rule.PROTOCOL);
        }
    }

    /** Not ours: no authoritative zone and no hosts entry covers the name. Forward it. */
    record Forward() implements Outcome {
    }

    Forward FORWARD = new Forward();
}
