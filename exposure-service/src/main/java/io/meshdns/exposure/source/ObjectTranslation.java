package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshdns.exposure.endpoint.Endpoint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jboss.logging.Logger;

/**
 * One pass's objects → desired endpoints through the enabled {@link Source}s, the same for the cluster's
 * informer caches and for manifest files. Each object is translated on its own: whatever one object's
 * translation throws (an address the API server would have refused, a value no annotation check foresaw)
 * drops only what that object added and becomes an {@link Problem#INVALID} problem on it, so its resource
 * counts as errored and the plan keeps its current records; every other object is still published.
 */
public final class ObjectTranslation {

    private static final Logger LOG = Logger.getLogger(ObjectTranslation.class);
    private static final Comparator<HasMetadata> BY_NAMESPACE_AND_NAME =
            Comparator.comparing((HasMetadata o) -> o.getMetadata().getNamespace() + "/" + o.getMetadata().getName());

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private final List<Source> sources;
    private final SourceSettings settings;
    private final SourceFilter filter;

    /**
     * {@code available}: every source bean; {@code enabled}: the names of {@code meshdns.exposure.sources};
     * {@code filter}: which of the sources' own objects are translated at all.
     */
    public ObjectTranslation(Collection<? extends Source> available, SourceSettings settings, Set<String> enabled, SourceFilter filter) {
        this.sources = byName(available).values().stream().filter(s -> enabled.contains(s.name())).toList();
        this.settings = settings;
        this.filter = filter;
    }

    public ObjectTranslation(Collection<? extends Source> available, SourceSettings settings, Set<String> enabled) {
        this(available, settings, enabled, SourceFilter.ALL);
    }

    /** The built-in sources only (tests and tools that run without CDI). */
    public ObjectTranslation(SourceSettings settings, Set<String> enabled) {
        this(builtIn(), settings, enabled);
    }

    /** The sources shipped with exposure-service, for code that runs without CDI. */
    public static List<Source> builtIn() {
        return List.of(new ServiceSource(), new IngressSource(), new DnsEndpointSource());
    }

    /** Sources by their one name, in name order; two beans of one name are a build defect. */
    public static Map<String, Source> byName(Collection<? extends Source> sources) {
        var out = new TreeMap<String, Source>();
        for (Source s : sources) {
            Source clash = out.put(s.name(), s);
            if (clash != null) {
                throw new IllegalStateException("two sources named '" + s.name() + "': " + clash.getClass().getName() + ", "
                        + s.getClass().getName());
            }
        }
        return out;
    }

    /** The names of the enabled sources, in order. */
    public List<String> names() {
        return sources.stream().map(Source::name).toList();
    }

    /** Every kind the enabled sources read (each once): what the cluster watches and manifests keep. */
    public List<WatchedKind> kinds() {
        var out = new LinkedHashMap<String, WatchedKind>();
        for (Source s : sources) {
            out.putIfAbsent(s.kind().key(), s.kind());
            s.context().forEach(k -> out.putIfAbsent(k.key(), k));
        }
        return List.copyOf(out.values());
    }

    /** The objects of one pass, of any kind; a kind no enabled source reads is ignored. Objects are taken in a stable order. */
    public SourceOutput translate(Collection<? extends HasMetadata> objects) {
        List<WatchedKind> kinds = kinds();
        var byKind = new HashMap<String, List<HasMetadata>>();
        for (HasMetadata o : objects) {
            for (WatchedKind k : kinds) {
                if (k.matches(o)) {
                    HasMetadata seen = AnnotationPrefix.apply(o, settings.annotationPrefix());
                    byKind.computeIfAbsent(k.key(), x -> new ArrayList<>()).add(k.isCustom() ? generic(seen) : seen);
                    break;
                }
            }
        }
        byKind.values().forEach(list -> list.sort(BY_NAMESPACE_AND_NAME));
        var context = new SourceContext(settings, byKind, filter);
        var out = new SourceOutput();
        for (Source source : sources) {
            for (HasMetadata o : context.objects(source.kind())) {
                if (filter.admits(o)) guarded(out, o, source, context);
            }
        }
        if (!settings.defaultTargets().isEmpty()) applyDefaultTargets(out);
        return out;
    }

    /**
     * ExternalDNS's --default-targets (source/wrappers/multisource.go): an A, AAAA or CNAME endpoint without targets (a
     * DNSEndpoint entry may leave them out) gets the default targets, typed by what each is; with --force-default-targets
     * every such endpoint does. Labels (owner resource), TTL, set identifier and provider-specific properties are kept; a name
     * (per set identifier and owner) gets the defaults once, whatever address types it had. Unlike ExternalDNS, whose
     * forced defaults turn every endpoint of a name into address records, TXT, SRV, MX, … keep their own targets.
     */
    private void applyDefaultTargets(SourceOutput out) {
        var result = new ArrayList<Endpoint>(out.endpoints().size());
        var replaced = new java.util.HashSet<String>();
        for (Endpoint e : out.endpoints()) {
            boolean addressLike = e.recordType().equals("A") || e.recordType().equals("AAAA") || e.recordType().equals("CNAME");
            if (!addressLike || !settings.forceDefaultTargets() && !e.targets().isEmpty()) {
                result.add(e);
                continue;
            }
            // a name's A and AAAA (or CNAME) are replaced by the defaults once, not once per address type it had
            if (!replaced.add(e.dnsName() + "\n" + e.setIdentifier() + "\n" + e.resource())) continue;
            var byType = new TreeMap<String, List<String>>();
            for (String t : settings.defaultTargets()) {
                String type = Endpoint.isIpLiteral(t) ? (t.contains(":") ? "AAAA" : "A") : "CNAME";
                byType.computeIfAbsent(type, k -> new ArrayList<>()).add(t);
            }
            // as every source does: a name with addresses gets no CNAME beside them, a CNAME one target
            if (byType.containsKey("A") || byType.containsKey("AAAA")) byType.remove("CNAME");
            byType.computeIfPresent("CNAME", (k, v) -> List.of(new java.util.TreeSet<>(v).first()));
            byType.forEach((type, targets) -> result.add(new Endpoint(e.dnsName(), type, targets, e.ttl(), e.labels(), e.setIdentifier(),
                    e.providerSpecific())));
        }
        out.endpoints().clear();
        out.endpoints().addAll(result);
    }

    /** Custom resources reach their source as generic resources, whichever class a parser made of them. */
    private static GenericKubernetesResource generic(HasMetadata o) {
        return o instanceof GenericKubernetesResource g ? g : SERIALIZATION.convertValue(o, GenericKubernetesResource.class);
    }

    private static void guarded(SourceOutput out, HasMetadata obj, Source source, SourceContext context) {
        int mark = out.endpoints().size();
        String kind = source.kind().kind();
        try {
            source.translate(obj, context, out);
        } catch (RuntimeException | StackOverflowError e) {
            out.endpoints().subList(mark, out.endpoints().size()).clear();
            String message = "cannot be translated by source " + source.name() + " (" + e + "); its current records are kept";
            LOG.warnf("%s %s/%s %s", kind, obj.getMetadata().getNamespace(), obj.getMetadata().getName(), message);
            out.problem(obj, kind, Problem.INVALID, message);
        }
    }
}
