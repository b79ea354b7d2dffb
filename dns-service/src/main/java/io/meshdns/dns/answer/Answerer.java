package io.meshdns.dns.answer;

import io.meshdns.dns.snapshot.Node;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.snapshot.ZoneIndex;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.Flags;
import org.xbill.DNS.HINFORecord;
import org.xbill.DNS.Header;
import org.xbill.DNS.MXRecord;
import org.xbill.DNS.Message;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Answers one standard QUERY from a {@link Snapshot}. Pure: no I/O, no clock, no shared mutable
 * state, so the conformance tests call it directly as well as over sockets.
 *
 * <p>Rules (see the package README for the full table): NXDOMAIN vs NODATA per RFC 8020 with the
 * zone SOA in the authority section (RFC 2308); wildcards per RFC 4592; CNAMEs chased inside and
 * across our zones; owner names echo the question's case; ANY per RFC 8482 (one synthesized
 * {@code HINFO "RFC8482" ""}); EDNS per RFC 6891 (OPT echoed, BADVERS for version != 0); class
 * other than IN is REFUSED, CHAOS included. Names no zone or hosts entry covers are {@link
 * Outcome.Forward forwarded}.
 */
public final class Answerer {
    /** Longest CNAME chain we follow before returning what we have (loops stop here too). */
    static final int MAX_CNAME_HOPS = 8;
    /** TTL of the RFC 8482 HINFO for hosts-file names, which have no SOA to take it from. */
    static final long OVERLAY_ANY_TTL = 3600;
    private static final String NO_ZONE = ".";

    private final int maxUdpPayload;

    /** {@code maxUdpPayload}: the size our OPT advertises (meshdns.dns.edns.max-udp-payload). */
    public Answerer(int maxUdpPayload) {
        this.maxUdpPayload = maxUdpPayload;
    }

    /** {@link #answer(QueryContext)} for a context of its own (tests, benchmarks, callers without a request context). */
    public Outcome answer(Snapshot snapshot, Message query, ClientInfo client) {
        return answer(new QueryContext(snapshot, client, query));
    }

    /**
     * Answers {@code ctx.query()} from {@code ctx.snapshot()}. A name the mesh index exports only to other
     * namespaces than the client's (Istio exportTo) is answered as if its object did not exist: NXDOMAIN
     * inside our zones (the mesh hook may then apply the placeholder), forwarded outside them.
     */
    public Outcome answer(QueryContext ctx) {
        Snapshot snapshot = ctx.snapshot();
        Message query = ctx.query();
        ClientInfo client = ctx.client();
        Header qh = query.getHeader();
        if (qh.getCount(Section.QUESTION) != 1) {
            return new Outcome.Answer(bare(query, Rcode.FORMERR, false), NO_ZONE);
        }
        OPTRecord opt = query.getOPT();
        if (opt != null && opt.getVersion() != 0) {
            return new Outcome.Answer(badVersion(query), NO_ZONE);
        }
        Record question = query.getQuestion();
        int qtype = question.getType();
        if (question.getDClass() != DClass.IN) {
            return new Outcome.Answer(finish(query, response(query, Rcode.REFUSED)), NO_ZONE);
        }
        if (qtype == Type.OPT || qtype == Type.TSIG || qtype == Type.TKEY) {
            return new Outcome.Answer(finish(query, response(query, Rcode.FORMERR)), NO_ZONE);
        }
        if (qtype == Type.AXFR || qtype == Type.IXFR) {
            // Transfers need TCP (RFC 5936); over TCP only a zone-transfer handler may serve them.
            int rcode = client.transport() == Transport.UDP ? Rcode.FORMERR : Rcode.REFUSED;
            return new Outcome.Answer(finish(query, response(query, rcode)), NO_ZONE);
        }
        Name qname = question.getName();
        boolean hidden = !ctx.mesh().visible(qname, ctx.mesh().exportRestricted() ? ctx.clientNamespace() : null);
        ZoneIndex zone = snapshot.findZone(qname);
        if (zone != null) {
            Message response = response(query, Rcode.NOERROR);
            if (hidden) {
                response.getHeader().setFlag(Flags.AA);
                response.getHeader().setRcode(Rcode.NXDOMAIN);
                response.addRecord(zone.negativeSoa(), Section.AUTHORITY);
                return new Outcome.Answer(finish(query, response), zone.label(), Outcome.Rule.NOT_EXPORTED);
            }
            resolve(snapshot, zone, qname, qtype, response);
            return new Outcome.Answer(finish(query, response), zone.label(), Outcome.Rule.ZONE);
        }
        Node hosts = hidden ? null : snapshot.overlayNode(qname);
        if (hosts != null) {
            return new Outcome.Answer(finish(query, answerOverlay(query, hosts, qname, qtype)), NO_ZONE, Outcome.Rule.OVERLAY);
        }
        return Outcome.FORWARD;
    }

    /** Fills {@code response} for {@code qname} in {@code zone}, chasing CNAMEs across our zones. */
    private void resolve(Snapshot snapshot, ZoneIndex zone, Name qname, int qtype, Message response) {
        response.getHeader().setFlag(Flags.AA);
        Name current = qname;
        for (int hop = 0; ; hop++) {
            RRset cut = zone.delegationFor(current);
            if (cut != null) {
                if (hop == 0) {
                    refer(snapshot, cut, response);
                }
                return; // a chased name that is delegated away: the client resolves the rest
            }
            Node node = zone.node(current);
            if (node == null) {
                node = zone.wildcardFor(current);
                if (node == null) {
                    // RFC 6604: the RCODE describes the last name of the chain.
                    response.getHeader().setRcode(Rcode.NXDOMAIN);
                    response.addRecord(zone.negativeSoa(), Section.AUTHORITY);
                    return;
                }
            }
            if (node.isEmptyNonTerminal()) {
                response.addRecord(zone.negativeSoa(), Section.AUTHORITY); // RFC 8020: NODATA
                return;
            }
            if (qtype == Type.ANY) {
                response.addRecord(rfc8482(current, zone.negativeSoa().getTTL()), Section.ANSWER);
                return;
            }
            RRset rrset = node.get(qtype);
            if (rrset != null) {
                addRRset(response, rrset, current, Section.ANSWER);
                addAdditional(snapshot, rrset, response);
                return;
            }
            RRset cname = node.get(Type.CNAME);
            if (cname == null) {
                response.addRecord(zone.negativeSoa(), Section.AUTHORITY); // NODATA
                return;
            }
            addRRset(response, cname, current, Section.ANSWER);
            Name target = ((CNAMERecord) cname.first()).getTarget();
            ZoneIndex targetZone = snapshot.findZone(target);
            if (targetZone == null || hop + 1 >= MAX_CNAME_HOPS || target.equals(qname)) {
                return; // out of our zones (the client chases), or a chain too long to be sane
            }
            zone = targetZone;
            current = target;
        }
    }

    /** A referral for a delegated name: not authoritative, NS in authority, in-zone glue. */
    private void refer(Snapshot snapshot, RRset ns, Message response) {
        response.getHeader().unsetFlag(Flags.AA);
        addRRset(response, ns, ns.getName(), Section.AUTHORITY);
        for (Record r : ns.rrs(false)) {
            addAddresses(snapshot, ((NSRecord) r).getTarget(), response);
        }
    }

    /** Hosts-file data: answered with AA; a name present with other types only is NODATA (no SOA). */
    private Message answerOverlay(Message query, Node node, Name qname, int qtype) {
        Message response = response(query, Rcode.NOERROR);
        response.getHeader().setFlag(Flags.AA);
        if (qtype == Type.ANY) {
            response.addRecord(rfc8482(qname, OVERLAY_ANY_TTL), Section.ANSWER);
            return response;
        }
        RRset rrset = node.get(qtype);
        if (rrset != null) {
            addRRset(response, rrset, qname, Section.ANSWER);
        }
        return response;
    }

    /** SRV targets, MX exchanges and NS hosts get their A/AAAA in the additional section if we hold them. */
    private void addAdditional(Snapshot snapshot, RRset rrset, Message response) {
        int type = rrset.getType();
        if (type != Type.SRV && type != Type.MX && type != Type.NS) {
            return;
        }
        for (Record r : rrset.rrs(false)) {
            Name target = switch (type) {
                case Type.SRV -> ((SRVRecord) r).getTarget();
                case Type.MX -> ((MXRecord) r).getTarget();
                default -> ((NSRecord) r).getTarget();
            };
            addAddresses(snapshot, target, response);
        }
    }

    private void addAddresses(Snapshot snapshot, Name target, Message response) {
        ZoneIndex zone = snapshot.findZone(target);
        Node node = zone != null ? zone.node(target) : snapshot.overlayNode(target);
        if (node == null) {
            return;
        }
        for (int type : new int[] {Type.A, Type.AAAA}) {
            RRset set = node.get(type);
            if (set != null && !response.findRRset(target, type, Section.ADDITIONAL)) {
                addRRset(response, set, target, Section.ADDITIONAL);
            }
        }
    }

    /** Adds the RRset with {@code owner} as owner name: the question's case, or the wildcard's synthesized name. */
    private static void addRRset(Message response, RRset rrset, Name owner, int section) {
        for (Record r : rrset.rrs(false)) {
            response.addRecord(r.getName() == owner ? r : r.withName(owner), section);
        }
    }

    private static Record rfc8482(Name owner, long ttl) {
        return new HINFORecord(owner, DClass.IN, ttl, "RFC8482", "");
    }

    /** A response with only {@code rcode}, the question and (if asked) our OPT: REFUSED, SERVFAIL... */
    public Message error(Message query, int rcode) {
        return finish(query, response(query, rcode));
    }

    /** Header (ID, opcode, RD and CD copied, QR set) plus the question. */
    static Message response(Message query, int rcode) {
        Message response = bare(query, rcode, true);
        response.addRecord(query.getQuestion(), Section.QUESTION);
        return response;
    }

    /** A header-only response; used for FORMERR, so a malformed query is never amplified. */
    static Message bare(Message query, int rcode, boolean keepFlags) {
        Header qh = query.getHeader();
        Message response = new Message(qh.getID());
        Header h = response.getHeader();
        h.setFlag(Flags.QR);
        h.setOpcode(qh.getOpcode());
        if (qh.getFlag(Flags.RD)) {
            h.setFlag(Flags.RD);
        }
        if (keepFlags && qh.getFlag(Flags.CD)) {
            h.setFlag(Flags.CD);
        }
        h.setRcode(rcode);
        return response;
    }

    /** RFC 6891 section 6.1.3: BADVERS is extended RCODE 16, carried in our OPT. */
    private Message badVersion(Message query) {
        Message response = response(query, Rcode.NOERROR);
        response.addRecord(new OPTRecord(maxUdpPayload, Rcode.BADVERS >>> 4, 0, 0), Section.ADDITIONAL);
        return response;
    }

    /**
     * EDNS on a forwarded response, which comes back without OPT (OPT is hop-by-hop): a query with OPT
     * gets ours, as our own answers do (RFC 6891 §7), with the query's DO bit copied (RFC 3225 §3:
     * the upstream was asked with it, so DNSSEC records may be in the answer).
     */
    public Message withEdns(Message query, Message forwarded) {
        OPTRecord opt = query.getOPT();
        if (opt != null && forwarded.getOPT() == null) {
            forwarded.addRecord(ourOpt(opt), Section.ADDITIONAL);
        }
        return forwarded;
    }

    /** Echoes EDNS: a query with OPT gets our OPT (advertising our payload size) last in additional. */
    private Message finish(Message query, Message response) {
        OPTRecord opt = query.getOPT();
        if (opt != null) {
            response.addRecord(ourOpt(opt), Section.ADDITIONAL);
        }
        return response;
    }

    private OPTRecord ourOpt(OPTRecord queryOpt) {
        return ourOpt((queryOpt.getFlags() & ExtendedFlags.DO) != 0);
    }

    /** Our OPT: our payload size, version 0, and the query's DO bit (RFC 3225 §3: it MUST be copied). */
    public OPTRecord ourOpt(boolean dnssecOk) {
        return new OPTRecord(maxUdpPayload, 0, 0, dnssecOk ? ExtendedFlags.DO : 0);
    }
}
