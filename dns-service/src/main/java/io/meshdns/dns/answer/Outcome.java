package io.meshdns.dns.answer;

import org.xbill.DNS.Message;

/** What the {@link Answerer} decided for one query. */
public sealed interface Outcome {

    /**
     * Which rule produced an answer: read by operator tooling that explains an answer, and by tests.
     * The Answerer sets ZONE, OVERLAY, NOT_EXPORTED and PROTOCOL; the mesh hook names its own rewrites
     * ({@code MeshQueryHook.ruleOf}); the forwarder says whether its cache answered.
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
        /** The mesh hook chased or rewrote the answer (ExternalName target, multi-cluster spread). */
        MESH_ADJUSTED,
        /** The mesh hook answered a search-path expansion of a pod's query with a CNAME to the name that exists. */
        AUTOPATH,
        /** A wildcard ServiceEntry host answered before forwarding. */
        WILDCARD_HOST,
        /** The forwarder's answer, from an upstream (or served stale when every upstream failed). */
        FORWARDED,
        /** The forwarder's answer from its cache, no upstream asked. */
        FORWARDED_CACHED
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
