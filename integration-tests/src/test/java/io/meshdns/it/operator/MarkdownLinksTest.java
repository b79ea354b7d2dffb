package io.meshdns.it.operator;

import io.meshdns.testsupport.QuarkusJarProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every relative link in the repository's Markdown files resolves: the file or folder exists, and a
 * {@code #fragment} into a Markdown file names one of its headings (GitHub's anchor rules). Links in code
 * blocks and inline code are not links; absolute URLs are not checked (tests never reach the network).
 */
class MarkdownLinksTest {
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

    @Test
    void everyRelativeLinkResolves() throws IOException {
        Path root = QuarkusJarProcess.repositoryRoot();
        List<Path> files = markdownFiles(root);
        assertTrue(files.size() >= 20, "Markdown files found: " + files);
        List<String> broken = new ArrayList<>();
        for (Path f : files) broken.addAll(brokenLinks(root, f));
        assertEquals(List.of(), broken);
    }

    /** The checker itself finds a missing file, a missing heading, and ignores code and URLs. */
    @Test
    void theCheckerFindsBrokenLinks(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("other.md"), "# Some Heading: with (punctuation)\n\n## Twice\n## Twice\n");
        Files.writeString(dir.resolve("doc.md"), """
                [ok](other.md) [ok](other.md#some-heading-with-punctuation) [ok](other.md#twice-1) [ok](#local)
                [gone](missing.md) [no anchor](other.md#nope) [url](https://example.org/x) `[code](missing-too.md)`
                ```
                [in a block](missing-three.md)
                ```
                ## Local
                """);
        List<String> broken = brokenLinks(dir, dir.resolve("doc.md"));
        assertEquals(2, broken.size(), broken.toString());
        assertTrue(broken.get(0).contains("missing.md") && broken.get(1).contains("#nope"), broken.toString());
    }

    static List<Path> markdownFiles(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                    .filter(p -> {
                        for (Path part : root.relativize(p)) {
                            String s = part.toString();
                            if (s.equals("target") || s.equals("node_modules") || s.startsWith(".")) return false;
                        }
                        return true;
                    }).sorted().toList();
        }
    }

    static List<String> brokenLinks(Path root, Path file) throws IOException {
        List<String> broken = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        boolean fence = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                fence = !fence;
                continue;
            }
            if (fence) continue;
            Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", ""));
            while (m.find()) {
                String link = m.group(1);
                if (link.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) continue; // https:, mailto:
                int hash = link.indexOf('#');
                String path = hash < 0 ? link : link.substring(0, hash);
                String fragment = hash < 0 ? null : link.substring(hash + 1);
                Path target = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                String where = root.relativize(file) + ":" + (i + 1) + ": " + link;
                if (!Files.exists(target)) {
                    broken.add(where + " (no such file)");
                } else if (fragment != null && target.toString().endsWith(".md") && !anchors(target).contains(fragment)) {
                    broken.add(where + " (no such heading)");
                }
            }
        }
        return broken;
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
    static Set<String> anchors(Path file) {
        Set<String> out = new LinkedHashSet<>();
        boolean fence = false;
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith("```")) {
                    fence = !fence;
                    continue;
                }
                Matcher m = HEADING.matcher(line);
                if (fence || !m.matches()) continue;
                String slug = m.group(2).toLowerCase(Locale.ROOT).replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1")
                        .replaceAll("[`*_]", "").replaceAll("[^\\p{L}\\p{N}\\- ]", "").replace(' ', '-');
                String unique = slug;
                for (int n = 1; out.contains(unique); n++) unique = slug + "-" + n;
                out.add(unique);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
