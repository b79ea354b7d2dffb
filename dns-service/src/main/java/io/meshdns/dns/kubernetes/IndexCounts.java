package io.meshdns.dns.kubernetes;

import io.meshdns.model.ObjectRef;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The index entries that no one contributor owns: which namespaces exist (a Namespace, or any Service in it,
 * keeps one) and which namespace each local pod IP belongs to (autopath, exportTo). Several catalog entries
 * may say the same thing, so each {@link Fact} is counted: one entry going away keeps what another still says.
 */
final class IndexCounts {
    /** What one catalog entry tells the index directly, besides the records its contributors build. */
    sealed interface Fact permits NamespaceExists, ClientAddress {
    }

    /** The namespace exists (it may have no Service, and so no name of its own). */
    record NamespaceExists(String namespace) implements Fact {
    }

    /** A local pod's IP: a client from it asks from {@code namespace}. */
    record ClientAddress(InetAddress ip, ObjectRef pod, String namespace) implements Fact {
    }

    private final Map<String, Integer> namespaceRefs = new HashMap<>();
    /** Pod IP → the pods holding it; the first pod by ref wins a shared IP. */
    private final Map<InetAddress, TreeMap<ObjectRef, String>> podIps = new HashMap<>();

    /** Counts {@code fact} in ({@code add}) or out, and puts what the index now says into {@code edit}. */
    void count(Fact fact, boolean add, MeshIndexBuilder.Edit edit) {
        if (fact instanceof NamespaceExists n) countNamespace(n.namespace(), add ? 1 : -1, edit);
        else if (fact instanceof ClientAddress a) countClient(a, add, edit);
    }

    private void countNamespace(String name, int delta, MeshIndexBuilder.Edit edit) {
        String ns = name.toLowerCase(Locale.ROOT);
        int n = namespaceRefs.getOrDefault(ns, 0) + delta;
        if (n <= 0) {
            namespaceRefs.remove(ns);
            edit.namespaces.remove(ns);
        } else {
            namespaceRefs.put(ns, n);
            edit.namespaces.put(ns, Boolean.TRUE);
        }
    }

    private void countClient(ClientAddress a, boolean add, MeshIndexBuilder.Edit edit) {
        TreeMap<ObjectRef, String> owners = podIps.computeIfAbsent(a.ip(), k -> new TreeMap<>());
        if (add) owners.put(a.pod(), a.namespace().toLowerCase(Locale.ROOT));
        else owners.remove(a.pod());
        if (owners.isEmpty()) {
            podIps.remove(a.ip());
            edit.podNamespaceByIp.remove(a.ip());
        } else {
            edit.podNamespaceByIp.put(a.ip(), owners.firstEntry().getValue());
        }
    }
}
