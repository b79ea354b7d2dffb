package io.meshdns.dns.dynamic;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The UPDATE handler's pure core and the journal replay. An UPDATE from arbitrary bytes gets an
 * RCODE and, when NOERROR, every record it adds must read back from the journal form (what replay
 * will do); the replay of arbitrary journal text must end in a zone with an SOA, never a throw.
 */
class JournalAndUpdateFuzz {
    static final Name ZONE = Name.fromConstantString("mesh.example.");
    static final ZoneData BASE = ZoneData.initial(ZONE);

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void update(byte[] wire) throws IOException {
        Message m;
        try {
            m = new Message(wire);
        } catch (IOException | IllegalArgumentException e) {
            return;
        }
        UpdateProcessor.Result r = UpdateProcessor.apply(BASE, m);
        if (r.rcode() == Rcode.NOERROR) {
            for (Record added : r.added()) {
                String why = JournalCodec.storable(added, ZONE);
                if (why != null) {
                    throw new AssertionError("acknowledged a record the journal cannot replay: " + added + " (" + why + ")");
                }
            }
        }
    }

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void replay(FuzzedDataProvider data) throws IOException {
        String text = data.consumeRemainingAsString();
        ZoneJournal.Replay replay = ZoneJournal.replay(ZONE, text, Path.of("fuzz.journal"));
        if (replay.zone().soa() == null) {
            throw new AssertionError("replay left a zone without an SOA");
        }
    }
}
