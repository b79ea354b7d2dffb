package io.meshdns.exposure.sync;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.meshdns.exposure.source.ObjectTranslation;
import io.meshdns.exposure.source.SourceOutput;
import io.meshdns.exposure.source.SourceSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Desired state from YAML/JSON manifests ({@code meshdns.exposure.manifest-dirs}): objects of every kind
 * the enabled sources read, as {@code kubectl apply -f} would read them (multi-
 * document YAML, {@code kind: List}), re-read on every pass. A file that cannot be read or parsed
 * (or is larger than {@value #MAX_FILE_BYTES} bytes) is skipped and logged — whatever it throws —
 * and the other files still count. Without a cluster the service runs without one: try it on a laptop.
 */
final class ManifestSources implements DesiredSources {

    private static final Logger LOG = Logger.getLogger(ManifestSources.class);
    static final long MAX_FILE_BYTES = 8L << 20;
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private final List<Path> dirs;
    private final ObjectTranslation translation;

    ManifestSources(List<Path> dirs, ObjectTranslation translation) {
        this.dirs = List.copyOf(dirs);
        this.translation = translation;
    }

    /** With the built-in sources only. */
    ManifestSources(List<Path> dirs, SourceSettings settings, Set<String> enabled) {
        this(dirs, new ObjectTranslation(settings, enabled));
    }

    @Override
    public void start() {
        // nothing to watch: every pass reads the files
    }

    @Override
    public boolean started() {
        return true;
    }

    @Override
    public SourceOutput collect() {
        var objects = new ArrayList<HasMetadata>();
        for (Path file : files()) {
            try {
                if (Files.size(file) > MAX_FILE_BYTES) {
                    LOG.warnf("manifest %s: larger than %d bytes; skipped", file, MAX_FILE_BYTES);
                    continue;
                }
                objects.addAll(parse(Files.readString(file)));
            } catch (IOException | RuntimeException | StackOverflowError e) {
                LOG.warnf("manifest %s: cannot be read (%s); skipped, the other files still count", file, e);
            }
        }
        for (HasMetadata o : objects) {
            if (o.getMetadata().getNamespace() == null && !(o instanceof Node)) o.getMetadata().setNamespace("default");
        }
        return translation.translate(objects);
    }

    private List<Path> files() {
        var out = new ArrayList<Path>();
        for (Path dir : dirs) {
            try (Stream<Path> walk = Files.walk(dir, 4)) {
                walk.filter(p -> {
                    String n = p.getFileName().toString();
                    return !n.startsWith(".") && (n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json")) && Files.isRegularFile(p);
                }).sorted().forEach(out::add);
            } catch (IOException | RuntimeException e) {
                LOG.warnf("manifest dir %s: cannot be listed (%s)", dir, e.getMessage());
            }
        }
        return out;
    }

    static List<HasMetadata> parse(String content) {
        var out = new ArrayList<HasMetadata>();
        for (String doc : content.split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.stripLeading().startsWith("#"))) continue;
            Object o = SERIALIZATION.unmarshal(doc);
            if (o instanceof KubernetesList list) {
                out.addAll(list.getItems());
            } else if (o instanceof HasMetadata h) {
                out.add(h);
            } else if (o instanceof List<?> l) {
                for (Object x : l) if (x instanceof HasMetadata h) out.add(h);
            }
        }
        out.removeIf(h -> h.getMetadata() == null || h.getMetadata().getName() == null);
        return out;
    }

    @Override
    public void close() {
        // no resources held
    }
}
