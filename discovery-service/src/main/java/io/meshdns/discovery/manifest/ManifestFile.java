package io.meshdns.discovery.manifest;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One manifest file's bytes → its Kubernetes objects, or the reason the file is rejected. Pure (no
 * I/O, no state), so the whole parse path can be tested and fuzzed apart from the directory polling
 * in {@link ManifestSource}.
 *
 * <p>Never throws for any content: beyond the limits, not YAML/JSON, or not Kubernetes objects, the
 * answer is {@link Rejected} with a one-line reason (naming the limit's key when a limit refused it).
 */
public final class ManifestFile {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private ManifestFile() {
    }

    /** {@code meshdns.discovery.manifest.max-file-size} (bytes) and {@code .max-depth} (nesting levels). */
    public record Limits(long maxFileSize, int maxDepth) {
        public static final Limits DEFAULT = new Limits(4L * 1024 * 1024, 64);
    }

    /** What one file gives: its objects, or why it is rejected (then its previous objects are kept). */
    public sealed interface Result permits Loaded, Rejected {
    }

    /** Every object of the file, in order, {@code kind: List} flattened (a List item without apiVersion or kind rejects the file). */
    public record Loaded(List<HasMetadata> objects) implements Result {
        public Loaded {
            objects = List.copyOf(objects);
        }
    }

    public record Rejected(String reason) implements Result {
    }

    /** Parses one file's content within the limits. */
    public static Result parse(byte[] content, Limits limits) {
        if (content.length > limits.maxFileSize()) {
            return new Rejected(content.length + " bytes is more than meshdns.discovery.manifest.max-file-size ("
                    + limits.maxFileSize() + ")");
        }
        String text = new String(content, StandardCharsets.UTF_8);
        if (nestingDepth(text, limits.maxDepth()) > limits.maxDepth()) {
            return new Rejected("nested deeper than meshdns.discovery.manifest.max-depth (" + limits.maxDepth() + ")");
        }
        try {
            return objects(text, limits.maxFileSize() / 2);
        } catch (KubernetesClientException | YamlEngineException | IllegalArgumentException e) {
            // what fabric8, its YAML parser (snakeyaml-engine) and Jackson throw for content that is not YAML/JSON or not an object
            return new Rejected(e.getMessage() == null ? e.getClass().getSimpleName() : oneLine(e.getMessage()));
        }
    }

    private static String oneLine(String message) {
        String first = message.strip().lines().findFirst().orElse("");
        return first.length() > 300 ? first.substring(0, 300) + "…" : first;
    }

    /**
     * A lexical upper bound of the nesting depth of a YAML (or JSON) text, computed without parsing
     * it, so a hostile file is refused before a recursive parser can overflow its stack: block levels
     * by indentation (each {@code "- "} on a line is one more), plus open flow brackets, ignoring
     * quoted strings and comments. Stops counting once {@code limit} is exceeded.
     */
    static int nestingDepth(String content, int limit) {
        int max = 0;
        int flow = 0;
        int[] indents = new int[Math.max(4, limit + 2)];
        int stack = 0;
        int pos = 0;
        int n = content.length();
        while (pos < n) {
            int end = content.indexOf('\n', pos);
            if (end < 0) end = n;
            int i = pos;
            while (i < end && content.charAt(i) == ' ') i++;
            boolean blank = i >= end || content.charAt(i) == '#' || content.charAt(i) == '\r';
            if (!blank && flow == 0) {
                int indent = i - pos;
                int dashes = 0;
                while (i + 1 < end && content.charAt(i) == '-' && (content.charAt(i + 1) == ' ')) {
                    dashes++;
                    i += 2;
                    while (i < end && content.charAt(i) == ' ') i++;
                }
                while (stack > 0 && indents[stack - 1] >= indent) stack--;
                if (stack < indents.length) indents[stack] = indent;
                stack++;
                max = Math.max(max, stack + dashes);
                if (max > limit) return max;
            }
            char quote = 0;
            for (int j = i; j < end; j++) {
                char c = content.charAt(j);
                if (quote != 0) {
                    if (c == '\\' && quote == '"') {
                        j++;
                    } else if (c == quote) {
                        quote = 0;
                    }
                    continue;
                }
                char before = j == pos ? ' ' : content.charAt(j - 1);
                boolean tokenStart = before == ' ' || before == '\t' || before == '[' || before == '{' || before == ',' || before == ':';
                if ((c == '"' || c == '\'') && tokenStart) {
                    quote = c;
                } else if (c == '#' && (before == ' ' || before == '\t')) {
                    break;
                } else if (c == '[' || c == '{') {
                    flow++;
                    max = Math.max(max, stack + flow);
                    if (max > limit) return max;
                } else if ((c == ']' || c == '}') && flow > 0) {
                    flow--;
                }
            }
            pos = end + 1;
        }
        return max;
    }

    /**
     * YAML aliases ({@code *name}) let a file of a few hundred bytes stand for millions of nodes, which
     * the conversion to objects then builds one by one: minutes of CPU and the heap for one poll. A
     * file may use them only as long as its expansion stays within what the file-size limit allows
     * written out ({@code budget} nodes, a node taking at least two bytes); a cycle is refused too,
     * as the conversion would recurse into it forever. The composed node graph shares aliased nodes,
     * so this counts in time linear in the document.
     *
     * @return the document's node count with aliases expanded, saturated at {@code budget + 1}
     */
    private static long expandedNodes(String doc, long budget) {
        if (doc.indexOf('*') < 0) return 0; // no alias: no expansion, and the file-size limit bounds it already
        String start = doc.stripLeading();
        if (start.startsWith("{") || start.startsWith("[")) return 0; // read as JSON (fabric8 decides so): no aliases
        Map<Node, Long> sizes = new IdentityHashMap<>();
        long total = 0;
        for (Node root : new Compose(LoadSettings.builder().build()).composeAllFromString(doc)) {
            total = Math.min(budget + 1, total + expandedSize(root, sizes, budget));
        }
        return total;
    }

    /** Nodes in {@code node} once every alias is replaced by a copy, saturated at {@code budget + 1}. */
    private static long expandedSize(Node node, Map<Node, Long> sizes, long budget) {
        Long known = sizes.get(node);
        if (known != null) return known;
        sizes.put(node, budget + 1); // reached again before it is counted: a cycle, infinite
        long size = 1;
        if (node instanceof SequenceNode seq) {
            for (Node child : seq.getValue()) {
                if (size > budget) break;
                size += expandedSize(child, sizes, budget);
            }
        } else if (node instanceof MappingNode map) {
            for (NodeTuple entry : map.getValue()) {
                if (size > budget) break;
                size += expandedSize(entry.getKeyNode(), sizes, budget) + expandedSize(entry.getValueNode(), sizes, budget);
            }
        }
        size = Math.min(size, budget + 1);
        sizes.put(node, size);
        return size;
    }

    /** Splits a multi-document YAML (or a JSON object) into objects; "kind: List" is flattened. */
    private static Result objects(String content, long aliasBudget) {
        List<HasMetadata> out = new ArrayList<>();
        long expanded = 0;
        for (String doc : content.split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.stripLeading().startsWith("#"))) continue;
            expanded += expandedNodes(doc, aliasBudget);
            if (expanded > aliasBudget) {
                return new Rejected("its aliases expand beyond what meshdns.discovery.manifest.max-file-size allows written out ("
                        + aliasBudget + " nodes), or refer to themselves");
            }
            Object o = SERIALIZATION.unmarshal(doc);
            if (o instanceof KubernetesList list) {
                int index = 0;
                // Read as Objects: where an item's apiVersion or kind is missing fabric8 puts a RawExtension in this List<HasMetadata>.
                for (Object item : list.getItems()) {
                    if (!(item instanceof HasMetadata h)) {
                        return new Rejected("items[" + index + "] of the List is not a Kubernetes object (apiVersion and kind)");
                    }
                    out.add(h);
                    index++;
                }
            } else if (o instanceof HasMetadata h) {
                out.add(h);
            } else if (o instanceof List<?> l) {
                for (Object x : l) if (x instanceof HasMetadata h) out.add(h);
            }
        }
        return new Loaded(out);
    }
}
