package io.meshdns.testsupport;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * fabric8's CRUD dispatcher with watches that honour {@code resourceVersion} the way kube-apiserver's watch cache
 * does. The plain CRUD dispatcher answers every watch with ADDED for what exists now, whatever resourceVersion it
 * resumes from, so a client that reconnects never hears of a delete it missed: a real API server would replay it,
 * or say 410 Gone. Here:
 *
 * <ul>
 *   <li>every change is kept in a history with its resourceVersion (a delete gets a new one, as in etcd);</li>
 *   <li>a watch from version R replays the changes after R that match it, in order, then streams live ones;
 *       a watch without a version (or "0") starts with ADDED for every matching object;</li>
 *   <li>after {@link #compact()} (etcd compaction), a watch from a version older than the compaction is told
 *       "410 Gone, too old resource version": by default as kube-apiserver does, an {@code ERROR} watch event
 *       whose object is a {@code Status} with code 410 (reason {@code Expired}), then the stream ends; with
 *       {@link GoneAnswer#HTTP_STATUS}, as an HTTP 410 answer to the watch request itself.</li>
 * </ul>
 * fabric8 falls back to a plain HTTP watch when a WebSocket handshake fails with an I/O error (a reset during the
 * handshake does that); the mock server cannot hold a plain response open, so such a watch is answered with what it
 * would stream at once (the replay, or the 410 event) and then ends, as a watch whose timeout ran out: the client
 * watches again from its last version, about once a second. Lists and writes are the CRUD dispatcher's own.
 */
public class WatchCacheCrudDispatcher extends KubernetesCrudDispatcher {

    /** How an expired resourceVersion is refused. */
    public enum GoneAnswer {
        /** HTTP 200 and then {@code {"type":"ERROR","object":{"kind":"Status","code":410,...}}}: kube-apiserver's way. */
        ERROR_EVENT,
        /** HTTP 410 with a Status body to the watch request. */
        HTTP_STATUS
    }

    /** One change: the object's attribute sets before and after (null when absent), its JSON before and after. */
    private record Change(long resourceVersion, AttributeSet before, AttributeSet after, String oldJson, String newJson) {
    }

    /** kube-apiserver's watch cache is bounded too; a client further behind relists. */
    private static final int MAX_HISTORY = 100_000;

    private final Object lock = new Object();
    private final Deque<Change> history = new ArrayDeque<>();
    private final Set<Watch> live = ConcurrentHashMap.newKeySet();
    private final AtomicInteger goneSent = new AtomicInteger();
    /** Resource path of a plain HTTP watch → when it was last answered (System.nanoTime). */
    private final Map<String, Long> httpWatchPolls = new ConcurrentHashMap<>();
    private volatile GoneAnswer goneAnswer = GoneAnswer.ERROR_EVENT;
    private long lastResourceVersion;
    private long compactedThrough;

    /** How {@link #compact()}ed versions are refused from now on. */
    public void goneAnswer(GoneAnswer answer) {
        this.goneAnswer = Objects.requireNonNull(answer);
    }

    /** Drops the history, as etcd compaction does: a watch resumed from any version seen so far gets 410. */
    public void compact() {
        synchronized (lock) {
            history.clear();
            compactedThrough = lastResourceVersion;
        }
    }

    /** 410 answers given so far (events and HTTP statuses). */
    public int goneAnswers() {
        return goneSent.get();
    }

    /** Watches streaming now (WebSocket), plus plain HTTP watches of distinct resources polled in the last 3 s. */
    public int liveWatches() {
        long recent = System.nanoTime() - 3_000_000_000L;
        return live.size() + (int) httpWatchPolls.values().stream().filter(t -> t > recent).count();
    }

    @Override
    public void processEvent(String path, AttributeSet pathAttributes, AttributeSet oldAttributes,
                             GenericKubernetesResource resource, String newState) {
        // Called by the CRUD handlers under the dispatcher's write lock; ours orders changes against watch starts.
        synchronized (lock) {
            String existing = oldAttributes == null ? null : getMap().get(oldAttributes);
            super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
            if (Objects.equals(existing, newState)) return;
            AttributeSet after = null;
            if (newState != null) {
                for (Map.Entry<AttributeSet, String> e : getMap().entrySet()) {
                    if (e.getValue() == newState) {
                        after = e.getKey();
                        break;
                    }
                }
            }
            long rv;
            String oldJson = existing;
            if (newState != null) {
                rv = Long.parseLong(Serialization.unmarshal(newState, GenericKubernetesResource.class).getMetadata().getResourceVersion());
            } else {
                // The CRUD dispatcher gives a delete no version; etcd does, and the DELETED event carries it.
                rv = requestResourceVersion();
                GenericKubernetesResource gone = Serialization.unmarshal(existing, GenericKubernetesResource.class);
                gone.getMetadata().setResourceVersion(Long.toString(rv));
                oldJson = Serialization.asJson(gone);
            }
            lastResourceVersion = Math.max(lastResourceVersion, rv);
            Change c = new Change(rv, existing == null ? null : oldAttributes, after, oldJson, newState);
            history.addLast(c);
            while (history.size() > MAX_HISTORY) compactedThrough = history.removeFirst().resourceVersion();
            for (Watch w : live) w.deliver(c);
        }
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        boolean plainWatch = "GET".equalsIgnoreCase(request.getMethod()) && request.getHeader("Upgrade") == null
                && "true".equals(query(request.getPath()).get("watch"));
        return plainWatch ? httpWatch(request.getPath()) : super.dispatch(request);
    }

    private MockResponse httpWatch(String path) {
        Map<String, String> query = query(path);
        Long from = resumeVersion(query.get("resourceVersion"));
        httpWatchPolls.put(URI.create(path).getPath(), System.nanoTime());
        StringBuilder body = new StringBuilder();
        synchronized (lock) {
            if (from != null && from < compactedThrough) {
                goneSent.incrementAndGet();
                if (goneAnswer == GoneAnswer.HTTP_STATUS) return new MockResponse().setResponseCode(410).setBody(goneStatus(from));
                body.append(event("ERROR", goneStatus(from))).append('\n');
            } else {
                Watch w = new Watch(selector(path, query), from);
                w.replay(line -> body.append(line).append('\n'));
            }
        }
        return new MockResponse().setResponseCode(200).addHeader("Content-Type", "application/json").setBody(body.toString());
    }

    private AttributeSet selector(String path, Map<String, String> query) {
        AttributeSet selector = attributeExtractor.fromPath(path);
        String name = fieldSelectorName(query.get("fieldSelector"));
        return name == null ? selector : selector.add(new io.fabric8.mockwebserver.crud.Attribute("name", name));
    }

    private static String event(String type, String json) {
        return "{\"type\":\"" + type + "\",\"object\":" + json + "}";
    }

    @Override
    public MockResponse handleGet(String path) {
        Map<String, String> query = query(path);
        if (!"true".equals(query.get("watch"))) return super.handleGet(path);
        Long from = resumeVersion(query.get("resourceVersion"));
        if (from != null && goneAnswer == GoneAnswer.HTTP_STATUS && expired(from)) {
            goneSent.incrementAndGet();
            return new MockResponse().setResponseCode(410).setBody(goneStatus(from));
        }
        return new MockResponse().withWebSocketUpgrade(new Watch(selector(path, query), from));
    }

    private boolean expired(long from) {
        synchronized (lock) {
            return from < compactedThrough;
        }
    }

    private String goneStatus(long from) {
        long now;
        synchronized (lock) {
            now = lastResourceVersion;
        }
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                + "\"message\":\"too old resource version: " + from + " (" + now + ")\",\"reason\":\"Expired\",\"code\":410}";
    }

    /** One watch stream: what it missed first, then live changes, all under the lock so nothing falls between. */
    private final class Watch extends WebSocketListener {
        private final AttributeSet selector;
        private final Long from;
        private volatile WebSocket socket;

        Watch(AttributeSet selector, Long from) {
            this.selector = selector;
            this.from = from;
        }

        @Override
        public void onOpen(WebSocket webSocket, Response response) {
            socket = webSocket;
            synchronized (lock) {
                if (from != null && from < compactedThrough) {
                    goneSent.incrementAndGet();
                    webSocket.send(event("ERROR", goneStatus(from)));
                    webSocket.close(1000, "");
                    return;
                }
                replay(this::send);
                live.add(this);
            }
        }

        /** What a watch from {@code from} gets first; called under the lock. */
        void replay(java.util.function.Consumer<String> out) {
            if (from == null) {
                for (Map.Entry<AttributeSet, String> e : getMap().entrySet()) {
                    if (e.getKey().matches(selector)) out.accept(event("ADDED", e.getValue()));
                }
            } else {
                for (Change c : history) {
                    if (c.resourceVersion() > from) deliver(c, out);
                }
            }
        }

        void deliver(Change c) {
            deliver(c, this::send);
        }

        private void deliver(Change c, java.util.function.Consumer<String> out) {
            boolean was = c.before() != null && c.before().matches(selector);
            boolean is = c.after() != null && c.after().matches(selector);
            if (was && is) out.accept(event("MODIFIED", c.newJson()));
            else if (was) out.accept(event("DELETED", c.oldJson()));
            else if (is) out.accept(event("ADDED", c.newJson()));
        }

        private void send(String line) {
            WebSocket s = socket;
            if (s != null) s.send(line);
        }

        @Override
        public void onClosing(WebSocket webSocket, int code, String reason) {
            live.remove(this);
            webSocket.close(code, reason);
        }

        @Override
        public void onClosed(WebSocket webSocket, int code, String reason) {
            live.remove(this);
        }

        @Override
        public void onFailure(WebSocket webSocket, Throwable t, Response response) {
            live.remove(this);
        }
    }

    /** The version a watch resumes from; null for "now, with the current state first" ("" or "0"). */
    private static Long resumeVersion(String rv) {
        if (rv == null || rv.isEmpty() || rv.equals("0")) return null;
        return Long.parseLong(rv);
    }

    private static String fieldSelectorName(String selector) {
        if (selector == null) return null;
        for (String term : selector.split(",")) {
            if (term.startsWith("metadata.name=")) return term.substring("metadata.name=".length());
        }
        return null;
    }

    private static Map<String, String> query(String path) {
        Map<String, String> out = new java.util.HashMap<>();
        String q = URI.create(path).getRawQuery();
        if (q == null) return out;
        for (String kv : q.split("&")) {
            int eq = kv.indexOf('=');
            String k = eq < 0 ? kv : kv.substring(0, eq);
            String v = eq < 0 ? "" : kv.substring(eq + 1);
            out.put(URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
        }
        return out;
    }
}
