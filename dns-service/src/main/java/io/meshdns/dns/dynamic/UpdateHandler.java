package io.meshdns.dns.dynamic;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.QueryContext;
import io.meshdns.dns.server.RequestHandler;
import io.meshdns.dns.tsig.MessageLayout;
import io.meshdns.dns.tsig.TsigVerdict;
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
 * Opcode UPDATE (RFC 2136) over UDP and TCP. The request path has already checked the TSIG (a bad one never gets
 * here, see {@code server/RequestFate}); this handler requires one: unsigned is REFUSED. Then the zone section
 * (exactly one SOA-typed zone: else FORMERR; not a dynamic zone: NOTAUTH), then {@link UpdateProcessor} on the
 * writer thread. Every response to a signed request is signed.
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
        // Without the request path's TSIG verdict the request counts as unsigned.
        return handle(request, client, TsigVerdict.UNSIGNED);
    }

    @Override
    public CompletionStage<Reply> handle(QueryContext ctx, byte[] wire) {
        return handle(ctx.query(), ctx.client(), ctx.tsig(), wire);
    }

    private CompletionStage<Reply> handle(Message request, ClientInfo client, TsigVerdict tsig) {
        return handle(request, client, tsig, null);
    }

    private CompletionStage<Reply> handle(Message request, ClientInfo client, TsigVerdict tsig, byte[] wire) {
        DynamicSettings settings = zones.settings();
        List<Record> zoneSection = request.getSection(Section.ZONE);
        Record zoneRecord = zoneSection.size() == 1 ? zoneSection.get(0) : null;
        if (!settings.enabled()) {
            return done(request, zoneRecord, Rcode.REFUSED, tsig, NO_ZONE);
        }
        if (!(tsig instanceof TsigVerdict.Verified)) {
            LOG.debugf("unsigned UPDATE from %s refused", client.address());
            return done(request, zoneRecord, Rcode.REFUSED, tsig, NO_ZONE);
        }
        if (zoneRecord == null || zoneRecord.getType() != Type.SOA || ttlAbove31Bits(wire)) {
            return done(request, zoneRecord, Rcode.FORMERR, tsig, NO_ZONE);
        }
        Name origin = zoneRecord.getName();
        if (zoneRecord.getDClass() != DClass.IN || zones.zone(origin) == null) {
            return done(request, zoneRecord, Rcode.NOTAUTH, tsig, NO_ZONE);
        }
        return zones.update(origin, request).thenApply(rcode -> build(request, zoneRecord, rcode, tsig, origin.toString()));
    }

    /**
     * A record asks for a TTL above 2^31-1 (RFC 2181 section 8 makes TTLs 31-bit). The parser reads such a TTL as 0, so
     * it is read from the bytes: refused, not stored as 0, so the writer learns at once (see README, prescan).
     */
    private static boolean ttlAbove31Bits(byte[] wire) {
        MessageLayout layout = wire == null ? null : MessageLayout.of(wire);
        return layout != null && layout.ttlTopBitSet();
    }

    private static CompletionStage<Reply> done(Message request, Record zone, int rcode, TsigVerdict tsig, String label) {
        return CompletableFuture.completedFuture(build(request, zone, rcode, tsig, label));
    }

    private static Reply build(Message request, Record zone, int rcode, TsigVerdict tsig, String label) {
        Message response = new Message(request.getHeader().getID());
        response.getHeader().setFlag(Flags.QR);
        response.getHeader().setOpcode(Opcode.UPDATE);
        response.getHeader().setRcode(rcode);
        if (zone != null) {
            response.addRecord(zone, Section.ZONE);
        }
        tsig.sign(response);
        return new Reply(response, label);
    }
}
