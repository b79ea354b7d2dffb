package io.meshdns.dns.dynamic;

import io.meshdns.dns.answer.ClientInfo;
import io.meshdns.dns.answer.QueryContext;
import io.meshdns.dns.base.Cidr;
import io.meshdns.dns.server.ZoneTransferHandler;
import io.meshdns.dns.tsig.TsigVerdict;
import io.netty.util.NetUtil;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TSIGRecord;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * AXFR (RFC 5936) of the dynamic zones over TCP; IXFR (RFC 1995) gets the same full answer, which
 * section 4 of RFC 1995 allows. Allowed when the request is signed with a configured TSIG key, or
 * (unsigned) from a {@code meshdns.dns.dynamic.allow-transfer} CIDR; otherwise REFUSED. Other zones
 * (zone files, discovery) are not transferable: REFUSED, as before this handler existed.
 * The zone is split into messages of about {@value #MESSAGE_BUDGET} bytes; with TSIG every
 * message is signed, each MAC chained to the previous one (RFC 8945 5.3.1).
 */
@ApplicationScoped
public class ZoneTransfers implements ZoneTransferHandler {
    private static final Logger LOG = Logger.getLogger(ZoneTransfers.class);
    static final int MESSAGE_BUDGET = 16 * 1024;

    @Inject
    DynamicZones zones;

    @Override
    public CompletionStage<List<Message>> transfer(Message request, ClientInfo client) {
        // Without the request path's TSIG verdict the request counts as unsigned.
        return CompletableFuture.completedFuture(messages(request, client, TsigVerdict.UNSIGNED));
    }

    @Override
    public CompletionStage<List<Message>> transfer(QueryContext ctx, byte[] wire) {
        return CompletableFuture.completedFuture(messages(ctx.query(), ctx.client(), ctx.tsig()));
    }

    private List<Message> messages(Message request, ClientInfo client, TsigVerdict tsig) {
        DynamicSettings settings = zones.settings();
        Name origin = request.getQuestion().getName();
        boolean unsignedAllowed = allowedUnsigned(settings, client);
        if (!(tsig instanceof TsigVerdict.Verified) && !unsignedAllowed) {
            LOG.debugf("unsigned AXFR %s from %s refused", origin, client.address());
        }
        return answer(request, zones.zone(origin), tsig, unsignedAllowed);
    }

    /**
     * The messages answering {@code request} (pure): REFUSED when {@code zone} is null (not a dynamic zone) or the
     * request is neither verified nor {@code unsignedAllowed}; else the zone, split and signed.
     */
    public static List<Message> answer(Message request, ZoneData zone, TsigVerdict tsig, boolean unsignedAllowed) {
        if (zone == null || (!(tsig instanceof TsigVerdict.Verified) && !unsignedAllowed)) {
            return List.of(error(request, Rcode.REFUSED, tsig));
        }
        return split(request, zone, tsig);
    }

    private static boolean allowedUnsigned(DynamicSettings settings, ClientInfo client) {
        byte[] address = NetUtil.createByteArrayFromIpAddressString(client.address());
        if (address == null) {
            return false;
        }
        for (Cidr cidr : settings.allowTransfer()) {
            if (cidr.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** SOA, every record, SOA again; in messages of about MESSAGE_BUDGET bytes, each signed in turn. */
    private static List<Message> split(Message request, ZoneData zone, TsigVerdict tsig) {
        List<Record> records = new ArrayList<>(zone.records());
        records.add(zone.soa());
        List<Message> messages = new ArrayList<>();
        Message current = header(request, true);
        int size = 0;
        for (Record r : records) {
            int length = r.toWire(Section.ANSWER).length; // uncompressed: an upper bound
            if (size > 0 && size + length > MESSAGE_BUDGET) {
                messages.add(current);
                current = header(request, false);
                size = 0;
            }
            current.addRecord(r, Section.ANSWER);
            size += length;
        }
        messages.add(current);
        if (tsig instanceof TsigVerdict.Verified verified) {
            TSIGRecord previous = verified.request();
            for (int i = 0; i < messages.size(); i++) {
                Message m = messages.get(i);
                verified.key().apply(m, Rcode.NOERROR, previous, i == 0);
                previous = m.getTSIG();
            }
        }
        return messages;
    }

    private static Message header(Message request, boolean withQuestion) {
        Message m = new Message(request.getHeader().getID());
        m.getHeader().setFlag(Flags.QR);
        m.getHeader().setFlag(Flags.AA);
        m.getHeader().setOpcode(Opcode.QUERY);
        if (withQuestion) {
            m.addRecord(request.getQuestion(), Section.QUESTION);
        }
        return m;
    }

    private static Message error(Message request, int rcode, TsigVerdict tsig) {
        Message m = header(request, true);
        m.getHeader().unsetFlag(Flags.AA);
        m.getHeader().setRcode(rcode);
        tsig.sign(m);
        return m;
    }
}
