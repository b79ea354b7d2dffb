package io.meshdns.dns.dynamic;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.server.RequestHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Opcode UPDATE (RFC 2136) over UDP and TCP. Order of checks: TSIG first (unsigned: REFUSED; unknown
 * key or bad MAC: NOTAUTH with the TSIG error), then the zone section (exactly one SOA-typed zone:
 * else FORMERR; not a dynamic zone: NOTAUTH), then {@link UpdateProcessor} on the writer thread.
 * Every response to a signed request is signed.
 */
@ApplicationScoped
public class UpdateHandler implements RequestHandler {
    private static final Logger LOG = Logger.getLogger(UpdateHandler.class);
    private static final String NO_ZONE = ".";

    @Inject
    DynamicZones zones;

    @Override
    public int opcode() {
        return Opcode.UPDATE;
    }

    @Override
    public CompletionStage<Reply> handle(Message request, ClientInfo client) {
        // Without the wire bytes the TSIG cannot be verified: treat like a failed signature.
        return handle(request, null, client);
    }

    @Override
    public CompletionStage<Reply> handle(Message request, byte[] wire, ClientInfo client) {
        DynamicSettings settings = zones.settings();
        List<Record> zoneSection = request.getSection(Section.ZONE);
        Record zoneRecord = zoneSection.size() == 1 ? zoneSection.get(0) : null;
        if (settings == null || !settings.enabled()) {
            return done(request, zoneRecord, Rcode.REFUSED, null, NO_ZONE);
        }
        TsigCheck tsig = wire == null
                ? new TsigCheck(TsigCheck.Status.UNSIGNED, null, null, Rcode.NOERROR)
                : TsigCheck.of(settings.keys(), request, wire);
        if (tsig.status() == TsigCheck.Status.UNSIGNED) {
            LOG.debugf("unsigned UPDATE from %s refused", client.address());
            return done(request, zoneRecord, Rcode.REFUSED, null, NO_ZONE);
        }
        if (tsig.status() == TsigCheck.Status.FAILED) {
            LOG.warnf("UPDATE from %s: TSIG %s for key %s", client.address(), Rcode.TSIGstring(tsig.error()),
                    tsig.requestTsig().getName());
            return done(request, zoneRecord, Rcode.NOTAUTH, tsig, NO_ZONE);
        }
        if (zoneRecord == null || zoneRecord.getType() != Type.SOA) {
            return done(request, zoneRecord, Rcode.FORMERR, tsig, NO_ZONE);
        }
        Name origin = zoneRecord.getName();
        if (zoneRecord.getDClass() != DClass.IN || zones.zone(origin) == null) {
            return done(request, zoneRecord, Rcode.NOTAUTH, tsig, NO_ZONE);
        }
        return zones.update(origin, request).thenApply(rcode -> build(request, zoneRecord, rcode, tsig, origin.toString()));
    }

    private static CompletionStage<Reply> done(Message request, Record zone, int rcode, TsigCheck tsig, String label) {
        return CompletableFuture.completedFuture(build(request, zone, rcode, tsig, label));
    }

    private static Reply build(Message request, Record zone, int rcode, TsigCheck tsig, String label) {
        Message response = new Message(request.getHeader().getID());
        response.getHeader().setFlag(Flags.QR);
        response.getHeader().setOpcode(Opcode.UPDATE);
        response.getHeader().setRcode(rcode);
        if (zone != null) {
            response.addRecord(zone, Section.ZONE);
        }
        if (tsig != null) {
            tsig.sign(response);
        }
        return new Reply(response, label);
    }
}
