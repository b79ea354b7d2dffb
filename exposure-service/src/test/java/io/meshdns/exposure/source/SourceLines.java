package io.meshdns.exposure.source;

import java.util.TreeSet;

/** A translation's output in the form the source tests compare: sorted lines, one per endpoint and one per problem. */
final class SourceLines {

    private SourceLines() {
    }

    static TreeSet<String> of(SourceOutput out) {
        var lines = new TreeSet<String>();
        out.endpoints().forEach(e -> lines.add(e.dnsName() + " " + e.ttl() + " " + e.recordType() + " " + e.targets() + " " + e.resource()));
        out.problems().forEach(p -> lines.add("PROBLEM " + p.reason() + " " + p.message()));
        return lines;
    }
}
