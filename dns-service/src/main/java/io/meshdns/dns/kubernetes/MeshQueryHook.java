package io.meshdns.dns.kubernetes;

import io.meshdns.dns.snapshot.MeshIndex;

import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The one hook the query handler calls after the Answerer produced a response from our own zones:
 * <ol>
 *   <li>NXDOMAIN inside our zones → the lazyload placeholder or an insecure pod name ({@link MeshAnswerPolicy#onNameError});</li>
 *   <li>NXDOMAIN for the first search-path expansion of a known pod → autopath: CNAME to the real name plus its answer;</li>
 *   <li>a CNAME whose target lies outside our zones (an ExternalName service) → the target is resolved through
 *       {@code resolver} (the forwarder) and its answer appended;</li>
 *   <li>an A/AAAA RRset merged from several clusters → shuffled or rotated; one whose addresses sit in several
 *       clusters or zones → this node's zone, then its cluster, first ({@link LocalityOrder}).</li>
 * </ol>
 * Responses from zones that are not ours return {@code null} at once (one string-set lookup); ours cost a few
 * field reads when none of the rules apply. {@link #beforeForward} answers wildcard ServiceEntry hosts.
 */
public final class MeshQueryHook {
    /** Resolves a query through the rest of the pipeline (our zones, else the forwarder), without this hook. */
    @FunctionalInterface
    public interface Resolver {
        CompletionStage<Message> resolve(Message query);
    }

    private final MeshAnswerPolicy policy;
    private final AtomicLong roundRobin = new AtomicLong();
    private final Set<String> meshZones;

    /** Stateless but for the round-robin counter: the catalog's index comes with each query's context. */
    public MeshQueryHook(MeshAnswerPolicy policy) {
        this.policy = policy;
        Set<String> zones = new HashSet<>();
        MeshSettings s = policy.settings();
        zones.add(s.clusterDomain().toString());
        zones.add(s.clustersetDomain().toString());
        for (Name suffix : s.placeholder().serviceEntrySuffixes()) zones.add(suffix.toString());
        this.meshZones = Set.copyOf(zones);
    }

    /**
     * Whether an answer {@link #adjust} left from {@code zone} under {@code rule} depends on nothing but the query
     * bytes and the snapshot, so that the UDP fast path may replay it for the same query from any client. Answers
     * from zones that are not ours always do. In ours: the Answerer's own answer does, except an NXDOMAIN that
     * autopath would have turned into a CNAME for a pod of the namespace the name expands ({@link
     * MeshAnswerPolicy#mayAutopath}); a synthesized one (the placeholder, an insecure pod name) does, since it reads
     * only the name and the snapshot's index. Chased, spread, locality-ordered and autopath answers are made per
     * query or per client and never do. The caller still excludes names exported to some namespaces only.
     */
    public boolean replayable(String zone, io.meshdns.dns.answer.Outcome.Rule rule, int rcode, Name qname) {
        if (!meshZones.contains(zone)) return true;
        return switch (rule) {
            case ZONE -> rcode != Rcode.NXDOMAIN || !policy.mayAutopath(qname);
            case MESH_SYNTHESIZED -> true;
            default -> false;
        };
    }

    /**
     * Called by the query handler for every response the Answerer produced from a zone.
     *
     * @param ctx      the request: the client's query, who asked (autopath maps it to a pod), the snapshot's mesh index
     * @param zone     the label of the zone that answered ({@code ZoneIndex.label()}, e.g. {@code cluster.local.})
     * @param response what the Answerer answered from our zones (never a forwarded answer)
     * @param resolver the rest of the pipeline, for autopath and ExternalName targets
     * @return null when the response stays as it is, else the response to send instead
     */
    public CompletionStage<Message> adjust(io.meshdns.dns.answer.QueryContext ctx, String zone, Message response, Resolver resolver) {
        if (!meshZones.contains(zone)) return null; // zone files and hosts data are none of our business
        Message query = ctx.query();
        Record question = query.getQuestion();
        if (question == null) return null;
        int rcode = response.getRcode();
        MeshIndex idx = ctx.mesh();
        if (rcode == Rcode.NXDOMAIN) {
            boolean hidden = idx.exportRestricted() && !idx.visible(question.getName(), ctx.clientNamespace());
            MeshAnswerPolicy.Synthesized s = policy.onNameError(idx, question.getName(), question.getType(), hidden);
            if (s != null) return CompletableFuture.completedFuture(synthesized(response, s));
            if (policy.settings().autopath()) {
                Name name = policy.autopathName(idx, question.getName(), ctx.clientIp());
                if (name != null) return autopath(query, response, name, resolver);
            }
            return null;
        }
        if (rcode != Rcode.NOERROR || response.getHeader().getCount(Section.ANSWER) == 0) return null;
        List<Record> answer = response.getSection(Section.ANSWER);
        Record last = answer.get(answer.size() - 1);
        int qtype = question.getType();
        if (last.getType() == Type.CNAME && qtype != Type.CNAME && qtype != Type.ANY
                && response.getHeader().getCount(Section.AUTHORITY) == 0) {
            // The Answerer stops at a CNAME whose target is in none of our zones (an ExternalName service): a stub
            // resolver does not chase CNAMEs, so we finish the chain through the forwarder.
            return chase(query, response, ((CNAMERecord) last).getTarget(), resolver);
        }
        if (answer.size() > 1 && policy.reorders(idx, question.getName(), qtype)) {
            return CompletableFuture.completedFuture(reorder(response, answer, idx));
        }
        return null;
    }

    /**
     * Called by the query handler for a query no zone or overlay holds, before it is forwarded: answers names
     * under a wildcard ServiceEntry host ({@code *.example.com}) with its addresses (NODATA for other types,
     * as the overlay does for exact hosts). Null: forward as usual.
     *
     * @param empty a NOERROR response to the query (question, OPT echoed), built only when needed
     */
    public Message beforeForward(io.meshdns.dns.answer.QueryContext ctx, Supplier<Message> empty) {
        MeshIndex idx = ctx.mesh();
        Map<Name, List<Record>> wild = idx.wildcardHosts();
        if (wild.isEmpty()) return null;
        Message query = ctx.query();
        Record question = query.getQuestion();
        if (question == null) return null;
        Name qname = question.getName();
        if (idx.exportRestricted() && !idx.visible(qname, ctx.clientNamespace())) return null; // as if the entry did not exist
        for (int strip = 1; strip < qname.labels() - 1; strip++) {
            List<Record> records = wild.get(new Name(qname, strip));
            if (records == null) continue;
            Message r = empty.get();
            r.getHeader().setFlag(Flags.AA);
            int qtype = question.getType();
            for (Record rec : records) {
                if (rec.getType() == qtype || qtype == Type.ANY) r.addRecord(rec.withName(qname), Section.ANSWER);
            }
            return r;
        }
        return null;
    }

    /**
     * The rule behind what {@link #adjust} returned for an answer the Answerer gave under {@code answerer}: each
     * of its outputs is told apart by its shape. The NXDOMAIN itself back (autopath found no candidate) keeps the
     * Answerer's rule (a zone's NXDOMAIN, or a name not exported to the client's namespace); a NOERROR from an
     * NXDOMAIN that starts with a CNAME owned by the question is autopath's (the placeholder and pod names never
     * carry one); any other answer from an NXDOMAIN is synthesized; from a positive answer, chased or spread.
     */
    public static io.meshdns.dns.answer.Outcome.Rule ruleOf(io.meshdns.dns.answer.Outcome.Rule answerer, Message before, Message after) {
        if (after == before) return answerer;
        if (before.getRcode() != Rcode.NXDOMAIN) return io.meshdns.dns.answer.Outcome.Rule.MESH_ADJUSTED;
        List<Record> answer = after.getSection(Section.ANSWER);
        if (!answer.isEmpty() && answer.get(0).getType() == Type.CNAME && before.getQuestion() != null
                && answer.get(0).getName().equals(before.getQuestion().getName())) {
            return io.meshdns.dns.answer.Outcome.Rule.AUTOPATH;
        }
        return io.meshdns.dns.answer.Outcome.Rule.MESH_SYNTHESIZED;
    }

    private Message synthesized(Message nxdomain, MeshAnswerPolicy.Synthesized s) {
        Message r = nxdomain.clone();
        r.getHeader().setRcode(Rcode.NOERROR);
        r.getHeader().setFlag(Flags.AA);
        if (!s.records().isEmpty()) {
            r.removeAllRecords(Section.AUTHORITY); // positive: no SOA; NODATA keeps the zone's SOA (RFC 2308)
            Name owner = nxdomain.getQuestion().getName(); // echo the question's case
            for (Record rec : s.records()) {
                r.addRecord(rec.withName(owner), Section.ANSWER);
            }
        }
        return r;
    }

    private CompletionStage<Message> autopath(Message query, Message nxdomain, Name name, Resolver resolver) {
        List<Name> candidates = policy.autopathCandidates(name);
        return tryCandidate(query, nxdomain, candidates, 0, resolver);
    }

    private CompletionStage<Message> tryCandidate(Message query, Message nxdomain, List<Name> candidates, int i, Resolver resolver) {
        if (i >= candidates.size()) return CompletableFuture.completedFuture(nxdomain);
        Name target = candidates.get(i);
        Message sub = Message.newQuery(Record.newRecord(target, query.getQuestion().getType(), DClass.IN));
        sub.getHeader().setFlag(Flags.RD);
        return resolver.resolve(sub).thenCompose(r -> {
            int rc = r.getRcode();
            if (rc == Rcode.NOERROR) {
                Message out = nxdomain.clone();
                out.getHeader().setRcode(Rcode.NOERROR);
                out.removeAllRecords(Section.ANSWER);
                out.removeAllRecords(Section.AUTHORITY);
                out.addRecord(new CNAMERecord(query.getQuestion().getName(), DClass.IN, policy.settings().ttl(), target), Section.ANSWER);
                for (Record rec : r.getSection(Section.ANSWER)) out.addRecord(rec, Section.ANSWER);
                for (Record rec : r.getSection(Section.AUTHORITY)) out.addRecord(rec, Section.AUTHORITY);
                return CompletableFuture.completedFuture(out);
            }
            // NXDOMAIN, or a failure: the resolver would go on with the next search domain, so do we.
            return tryCandidate(query, nxdomain, candidates, i + 1, resolver);
        });
    }

    private CompletionStage<Message> chase(Message query, Message response, Name target, Resolver resolver) {
        Message sub = Message.newQuery(Record.newRecord(target, query.getQuestion().getType(), DClass.IN));
        sub.getHeader().setFlag(Flags.RD);
        return resolver.resolve(sub).thenApply(r -> {
            Message out = response.clone();
            // RFC 6604: the rcode is that of the last name in the chain.
            int rc = r.getRcode();
            if (rc != Rcode.NOERROR && rc != Rcode.NXDOMAIN) {
                return out; // the target failed: the CNAME alone still tells the client where to go
            }
            out.getHeader().setRcode(rc);
            for (Record rec : r.getSection(Section.ANSWER)) out.addRecord(rec, Section.ANSWER);
            for (Record rec : r.getSection(Section.AUTHORITY)) out.addRecord(rec, Section.AUTHORITY);
            return out;
        });
    }

    /** Spread (shuffled or rotated) when the name merges clusters, then by locality when its addresses' differ. */
    private Message reorder(Message response, List<Record> answer, MeshIndex idx) {
        Name owner = response.getQuestion().getName();
        List<Record> order = policy.spreads(idx, owner, response.getQuestion().getType()) ? spread(answer)
                : canonical(answer);
        Map<java.net.InetAddress, MeshIndex.AddressLocality> localities = idx.localities().get(owner);
        if (localities != null) {
            MeshSettings.Locality l = policy.settings().locality();
            order = LocalityOrder.order(order, localities, l.order(), l.zone() != null ? l.zone() : idx.learnedZone());
        }
        Message out = response.clone();
        out.removeAllRecords(Section.ANSWER);
        for (Record r : order) out.addRecord(r, Section.ANSWER);
        return out;
    }

    /** One order whatever dnsjava's RRset rotation did: by address. */
    private static List<Record> canonical(List<Record> answer) {
        List<Record> order = new ArrayList<>(answer);
        order.sort(java.util.Comparator.comparing(Record::rdataToString));
        return order;
    }

    private List<Record> spread(List<Record> answer) {
        int n = answer.size();
        int shift = policy.settings().spread() == MeshSettings.Spread.ROUND_ROBIN
                ? (int) Math.floorMod(roundRobin.getAndIncrement(), (long) n)
                : -1;
        List<Record> order = new ArrayList<>(answer);
        if (shift >= 0) {
            // Start from one canonical order: dnsjava's RRset.rrs() already cycles on its own counter, which
            // would otherwise cancel our rotation out.
            order.sort(java.util.Comparator.comparing(Record::rdataToString));
            java.util.Collections.rotate(order, -shift);
        } else {
            java.util.Collections.shuffle(order, ThreadLocalRandom.current());
        }
        return order;
    }
}
