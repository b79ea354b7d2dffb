package io.meshdns.dns.answer;

import org.xbill.DNS.Message;

/** What the {@link Answerer} decided for one query. */
public sealed interface Outcome {

    /**
     * A complete response. {@code zone} is the label of the zone that produced it (for metrics),
     * or {@code "."} when no zone did (hosts data, protocol errors).
     */
    record Answer(Message response, String zone) implements Outcome {
    }

    /** Not ours: no authoritative zone and no hosts entry covers the name. Forward it. */
    record Forward() implements Outcome {
    }

    Forward FORWARD = new Forward();
}
