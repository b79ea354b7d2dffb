package io.meshdns.dns.server;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.meshdns.dns.fuzz.DamagedWire;
import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.QueryContext;
import io.meshdns.dns.answer.Transport;
import io.meshdns.dns.dynamic.ZoneData;
import io.meshdns.dns.dynamic.ZoneTransfers;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.tsig.TsigGate;
import io.meshdns.dns.tsig.TsigKeyring;
import io.meshdns.dns.tsig.TsigVerdict;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.TSIG;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * AXFR and IXFR requests over TCP as the request path decides them ({@link RequestFate#decide}: parse,
 * completeness, TSIG with its replay check) and as the dynamic zones answer them ({@link ZoneTransfers#answer}):
 * arbitrary bytes, or a correctly signed AXFR/IXFR (IXFR with the client's SOA in authority) with bytes overwritten,
 * cut (with TC set, the shape that once crashed the path) or appended. Never a throwable; every answer encodes;
 * a verified transfer opens and closes with the SOA and verifies, message by message, with dnsjava's client-side
 * stream verifier; an unsigned one is REFUSED. Fixed clock: every signed input stays in its time window.
 */
class TransferFuzz {
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    static final Name ORIGIN = Name.fromConstantString("mesh.example.");
    static final TsigKeyring KEYS = TsigKeyring.parse("fuzz", List.of("xfr:hmac-sha256:c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYg=="),
            CLOCK, true);
    static final TSIG KEY = KEYS.get(Name.fromConstantString("xfr."));
    static final ClientInfo CLIENT = new ClientInfo("127.0.0.1", 40000, false, Transport.TCP);
    /** Zones of 0, 40 and 400 extra records: one, one and three messages of about 16 KiB. */
    static final List<ZoneData> ZONES = List.of(zone(0), zone(40), zone(400));
    static final byte[] AXFR = signed(Type.AXFR);
    static final byte[] IXFR = signed(Type.IXFR);

    /** The dynamic zones' answer with {@code zone} as the only dynamic zone. */
    static ZoneTransferHandler transfers(ZoneData zone) {
        return new ZoneTransferHandler() {
            @Override
            public CompletionStage<List<Message>> transfer(Message request, ClientInfo client) {
                throw new UnsupportedOperationException("the request path passes the context");
            }

            @Override
            public CompletionStage<List<Message>> transfer(QueryContext ctx, byte[] wire) {
                Message request = ctx.query();
                ZoneData served = request.getQuestion().getName().equals(ORIGIN) ? zone : null;
                return CompletableFuture.completedFuture(ZoneTransfers.answer(request, served, ctx.tsig(), false));
            }
        };
    }

    static ZoneData zone(int extra) {
        try {
            List<Record> records = new ArrayList<>();
            records.add(new SOARecord(ORIGIN, DClass.IN, 300, Name.fromConstantString("ns.mesh.example."),
                    Name.fromConstantString("hostmaster.mesh.example."), 7, 3600, 600, 86400, 30));
            for (int i = 0; i < extra; i++) {
                Name owner = Name.fromConstantString("r" + i + ".mesh.example.");
                records.add(new ARecord(owner, DClass.IN, 60, InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, (byte) i})));
                records.add(new TXTRecord(owner, DClass.IN, 60, "filler " + "x".repeat(i % 90)));
            }
            return ZoneData.of(ORIGIN, records);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] signed(int type) {
        Message q = Message.newQuery(Record.newRecord(ORIGIN, type, DClass.IN));
        q.getHeader().setID(0x5846);
        if (type == Type.IXFR) {
            q.addRecord(new SOARecord(ORIGIN, DClass.IN, 0, Name.root, Name.root, 5, 0, 0, 0, 0), Section.AUTHORITY);
        }
        q.setTSIG(KEY, Rcode.NOERROR, null);
        return q.toWire(65535);
    }

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "25m")
    void transfer(FuzzedDataProvider data) throws Exception {
        ZoneTransferHandler transfers = transfers(ZONES.get(data.consumeInt(0, ZONES.size() - 1)));
        TsigGate gate = new TsigGate(KEYS); // a fresh replay cache: the same signed request may come every run
        byte[] wire;
        if (data.consumeBoolean()) {
            wire = DamagedWire.of(data, data.consumeBoolean() ? AXFR : IXFR, 0, 6, 8, true);
        } else {
            wire = data.consumeRemainingAsBytes();
        }
        RequestHandler[] none = new RequestHandler[16];
        RequestFate fate = RequestFate.decide(wire, CLIENT, Snapshot.empty(), new RequestFate.Routes(none, transfers, gate));
        if (fate instanceof RequestFate.Answered answered) {
            answered.reply().response().toWire();
        } else if (fate instanceof RequestFate.Transferred transferred) {
            check(transferred.ctx(), transferred.transfer().transfer(transferred.ctx(), wire).toCompletableFuture().join());
        }
    }

    private static void check(QueryContext ctx, List<Message> messages) throws Exception {
        if (messages.isEmpty()) throw new AssertionError("a transfer with no message");
        TsigVerdict verdict = ctx.tsig();
        if (!(verdict instanceof TsigVerdict.Verified verified)) {
            if (messages.size() != 1 || messages.get(0).getRcode() != Rcode.REFUSED) {
                throw new AssertionError("an unverified transfer was not refused: " + verdict.label());
            }
            messages.get(0).toWire();
            return;
        }
        boolean served = ctx.query().getQuestion().getName().equals(ORIGIN);
        TSIG.StreamVerifier verifier = new TSIG.StreamVerifier(KEY, verified.request());
        for (int i = 0; i < messages.size(); i++) {
            byte[] bytes = messages.get(i).toWire(65535);
            Message back = new Message(bytes);
            int result = verifier.verify(back, bytes, i == messages.size() - 1);
            if (result != Rcode.NOERROR) {
                throw new AssertionError("message " + i + " of " + messages.size() + " does not verify: " + Rcode.TSIGstring(result));
            }
        }
        if (served) {
            List<Record> first = messages.get(0).getSection(Section.ANSWER);
            List<Record> last = messages.get(messages.size() - 1).getSection(Section.ANSWER);
            if (first.isEmpty() || first.get(0).getType() != Type.SOA || last.get(last.size() - 1).getType() != Type.SOA) {
                throw new AssertionError("a transfer that does not open and close with the SOA");
            }
        }
    }
}
