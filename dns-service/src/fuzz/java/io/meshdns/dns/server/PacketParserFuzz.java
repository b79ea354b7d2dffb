package io.meshdns.dns.server;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.xbill.DNS.Message;

import java.io.IOException;

/**
 * The request parse path: dnsjava's wire parser, then the EDNS strictness check. Any input must end
 * in a parsed message or an IOException (FORMERR), never another throwable or a hang.
 */
class PacketParserFuzz {
    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void parse(byte[] packet) {
        Message m;
        try {
            m = new Message(packet);
        } catch (IOException e) {
            return; // FORMERR
        } catch (IllegalArgumentException e) {
            return; // dnsjava's runtime rejections of some garbage: RequestProcessor answers these FORMERR too
        }
        EdnsStrictness.violation(m);
        // Not m.toWire(): the server never re-encodes a request, and dnsjava cannot re-encode some records
        // it parses (a WKS record with an empty bitmap: the finding kept in PacketParserFuzzInputs).
    }
}
