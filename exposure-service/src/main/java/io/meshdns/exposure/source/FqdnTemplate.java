package io.meshdns.exposure.source;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ExternalDNS's {@code --fqdn-template} and {@code --combine-fqdn-annotation}, the one place every source reads them
 * ({@link #names}). ExternalDNS runs a Go template over the object; meshdns reads the part of that language a name
 * template uses: {@code {{.Name}}}, {@code {{.Namespace}}}, {@code {{.Kind}}}, {@code {{.Labels.key}}},
 * {@code {{.Annotations.key}}}, {@code {{index .Labels "key"}}}, {@code {{index .Annotations "key"}}} (and meshdns's older
 * {@code {{name}}}, {@code {{namespace}}}); anything else does not parse and stops the start naming the key. As in
 * ExternalDNS the output is split at commas (several names), each trimmed and its trailing dot dropped. A label or
 * annotation the object does not have cannot be filled: a Problem on that object, its current records kept.
 */
public final class FqdnTemplate {

    public static final String KEY = "meshdns.exposure.fqdn-template";
    private static final Pattern ACTION = Pattern.compile("\\{\\{-?\\s*(.*?)\\s*-?}}");
    private static final Pattern MAP_FIELD = Pattern.compile("\\.(Labels|Annotations)\\.([A-Za-z_][A-Za-z0-9_]*)");
    private static final Pattern INDEX = Pattern.compile("index\\s+\\.(Labels|Annotations)\\s+\"([^\"]+)\"");

    /** One piece of the template: literal text, or a field of the object ({@code what}: Name, Namespace, Kind, Labels, Annotations). */
    private record Piece(String literal, String what, String key) {
    }

    private final List<Piece> pieces;

    private FqdnTemplate(List<Piece> pieces) {
        this.pieces = pieces;
    }

    /** Fails naming {@link #KEY} on anything it cannot read. */
    public static FqdnTemplate parse(String text) {
        var pieces = new ArrayList<Piece>();
        Matcher m = ACTION.matcher(text);
        int at = 0;
        while (m.find()) {
            pieces.add(literal(text, text.substring(at, m.start())));
            pieces.add(field(text, m.group(1)));
            at = m.end();
        }
        pieces.add(literal(text, text.substring(at)));
        return new FqdnTemplate(List.copyOf(pieces));
    }

    private static Piece literal(String text, String s) {
        if (s.contains("{{") || s.contains("}}")) throw new IllegalArgumentException(KEY + ": '" + text + "': an unclosed {{ or a stray }}");
        return new Piece(s, null, null);
    }

    private static Piece field(String text, String expr) {
        switch (expr) {
            case ".Name", "name" -> {
                return new Piece(null, "Name", null);
            }
            case ".Namespace", "namespace" -> {
                return new Piece(null, "Namespace", null);
            }
            case ".Kind" -> {
                return new Piece(null, "Kind", null);
            }
            default -> {
                Matcher f = MAP_FIELD.matcher(expr);
                if (f.matches()) return new Piece(null, f.group(1), f.group(2));
                Matcher i = INDEX.matcher(expr);
                if (i.matches()) return new Piece(null, i.group(1), i.group(2));
                throw new IllegalArgumentException(KEY + ": '" + text + "': {{" + expr + "}} is not one of {{.Name}}, {{.Namespace}}, {{.Kind}},"
                        + " {{.Labels.key}}, {{.Annotations.key}}, {{index .Labels \"key\"}}, {{index .Annotations \"key\"}}");
            }
        }
    }

    /** The names this object gives, sorted, each once; IllegalArgumentException when a label or annotation it reads is missing. */
    public List<String> expand(HasMetadata object) {
        var m = object.getMetadata();
        var sb = new StringBuilder();
        for (Piece p : pieces) {
            if (p.literal() != null) {
                sb.append(p.literal());
                continue;
            }
            switch (p.what()) {
                case "Name" -> sb.append(m.getName());
                case "Namespace" -> sb.append(m.getNamespace() == null ? "" : m.getNamespace());
                case "Kind" -> sb.append(object.getKind());
                default -> {
                    Map<String, String> values = p.what().equals("Labels") ? m.getLabels() : m.getAnnotations();
                    String v = values == null ? null : values.get(p.key());
                    if (v == null) throw new IllegalArgumentException("the object has no " + (p.what().equals("Labels") ? "label" : "annotation")
                            + " '" + p.key() + "'");
                    sb.append(v);
                }
            }
        }
        var names = new TreeSet<String>();
        for (String n : sb.toString().split(",")) {
            String name = n.trim();
            if (name.endsWith(".")) name = name.substring(0, name.length() - 1);
            if (!name.isEmpty()) names.add(name);
        }
        return List.copyOf(names);
    }

    /**
     * The names an object publishes: its own, and the template's when it has none of its own — or always, with
     * {@code meshdns.exposure.combine-fqdn-annotation} (ExternalDNS's {@code --combine-fqdn-annotation}). A template this
     * object cannot fill is a Problem on it ({@link Problem#INVALID_FQDN_TEMPLATE}); its own names still count.
     */
    public static List<String> names(SourceSettings settings, HasMetadata object, String kind, Collection<String> own, SourceOutput out) {
        var names = new LinkedHashSet<>(own);
        if (settings.fqdnTemplate().isEmpty() || !names.isEmpty() && !settings.combineFqdnAnnotation()) return List.copyOf(names);
        try {
            names.addAll(parse(settings.fqdnTemplate().get()).expand(object));
        } catch (IllegalArgumentException e) {
            out.problem(object, kind, Problem.INVALID_FQDN_TEMPLATE, KEY + " cannot be filled for this " + kind + ": " + e.getMessage()
                    + "; its current records are kept");
        }
        return List.copyOf(names);
    }
}
