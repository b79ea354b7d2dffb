package io.meshdns.dns.answer;

import io.meshdns.dns.snapshot.MeshIndex;
import io.meshdns.dns.base.Names;
import io.meshdns.dns.snapshot.Snapshot;
import io.meshdns.dns.tsig.TsigVerdict;
import org.xbill.DNS.Message;

import java.net.InetAddress;

/**
 * Everything one request is answered from, read once when it arrives: the snapshot (which carries its
 * mesh index, so records and index always match), who asked, and the query. The answerer, the mesh
 * policies and the answer memo all take this, so no step reads the store a second time and sees a
 * newer snapshot than the one before it.
 *
 * <p>The client's namespace (its pod's namespace in the local cluster, from the mesh index) is looked up
 * on first use only: most answers never need it.
 */
public final class QueryContext {
    private final Snapshot snapshot;
    private final ClientInfo client;
    private final Message query;
    private final TsigVerdict tsig;
    private String namespace;
    private boolean namespaceResolved;

    public QueryContext(Snapshot snapshot, ClientInfo client, Message query) {
        this(snapshot, client, query, TsigVerdict.UNSIGNED);
    }

    /** With the TSIG step's verdict on the request (only requests that authenticate go through it). */
    public QueryContext(Snapshot snapshot, ClientInfo client, Message query, TsigVerdict tsig) {
        this.snapshot = snapshot;
        this.client = client;
        this.query = query;
        this.tsig = tsig;
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    /** The mesh index compiled with {@link #snapshot()}. */
    public MeshIndex mesh() {
        return snapshot.mesh();
    }

    public ClientInfo client() {
        return client;
    }

    public Message query() {
        return query;
    }

    /**
     * The TSIG step's verdict on the request ({@link TsigVerdict#UNSIGNED} for requests that do not authenticate).
     * A handler only ever sees UNSIGNED or {@link TsigVerdict.Verified}: the request path answers the others itself.
     */
    public TsigVerdict tsig() {
        return tsig;
    }

    /** The client's IP, or null when its address is not an IP literal. */
    public InetAddress clientIp() {
        return client == null ? null : Names.ip(client.address());
    }

    /**
     * The namespace of the local pod that owns the client's IP (lower case), or null for a client the
     * catalog does not know (the node itself, a host-network pod, another node).
     */
    public String clientNamespace() {
        if (!namespaceResolved) {
            InetAddress ip = clientIp();
            namespace = ip == null ? null : mesh().podNamespaceByIp().get(ip);
            namespaceResolved = true;
        }
        return namespace;
    }

    /** The same snapshot and client with another query (the mesh hook's sub-queries: autopath, CNAME targets). */
    public QueryContext withQuery(Message other) {
        QueryContext c = new QueryContext(snapshot, client, other, tsig);
        c.namespace = namespace;
        c.namespaceResolved = namespaceResolved;
        return c;
    }
}
