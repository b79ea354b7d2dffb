package io.meshdns.discovery.rejection;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.meshdns.discovery.translate.Translation;
import org.jboss.logging.Logger;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * Logs a malformed object once per resourceVersion and, when a client is given, records a Warning
 * Event on it (best effort, off the watch thread: a failing Event never affects the catalog).
 */
public final class RejectionReporter {
    private static final Logger LOG = Logger.getLogger(RejectionReporter.class);
    private final Map<String, String> reported = new ConcurrentHashMap<>();
    private final boolean recordEvents;
    private final Executor eventExecutor;

    public RejectionReporter(boolean recordEvents, Executor eventExecutor) {
        this.recordEvents = recordEvents;
        this.eventExecutor = eventExecutor;
    }

    public void report(KubernetesClient client, HasMetadata obj, Translation.Rejected r) {
        String key = r.object();
        String rv = obj.getMetadata() == null ? null : obj.getMetadata().getResourceVersion();
        String token = Objects.toString(rv, "") + "|" + r.reason();
        if (token.equals(reported.put(key, token))) return;
        LOG.warnf("skipping malformed %s: %s (its last good state, if any, is still served)", r.object(), r.reason());
        if (client != null && recordEvents && obj.getMetadata() != null && obj.getMetadata().getName() != null) {
            eventExecutor.execute(() -> recordEvent(client, obj, r));
        }
    }

    /** Forget an object (deleted), so that a new object of the same name is reported again. */
    public void forget(String object) {
        reported.remove(object);
    }

    private static void recordEvent(KubernetesClient client, HasMetadata obj, Translation.Rejected r) {
        String ns = obj.getMetadata().getNamespace() == null ? "default" : obj.getMetadata().getNamespace();
        String now = Instant.now().toString();
        try {
            client.v1().events().inNamespace(ns).resource(new EventBuilder()
                    .withNewMetadata().withGenerateName(obj.getMetadata().getName() + ".meshdns-").withNamespace(ns).endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(obj.getApiVersion()).withKind(obj.getKind())
                            .withNamespace(obj.getMetadata().getNamespace()).withName(obj.getMetadata().getName())
                            .withUid(obj.getMetadata().getUid()).withResourceVersion(obj.getMetadata().getResourceVersion()).build())
                    .withType("Warning").withReason("MeshdnsRejected").withMessage(r.reason())
                    .withNewSource().withComponent("meshdns-discovery").endSource()
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .build()).create();
        } catch (RuntimeException e) {
            LOG.debugf("could not record an Event for %s: %s", r.object(), e.getMessage());
        }
    }
}
