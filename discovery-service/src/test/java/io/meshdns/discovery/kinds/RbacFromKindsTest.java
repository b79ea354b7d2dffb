package io.meshdns.discovery.kinds;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Discovery's RBAC for its kinds is generated from the kind table: one cluster-wide list,watch rule per row (an
 * informer over every namespace needs exactly that), written between the markers of {@code api-calls.txt} and of the
 * {@code meshdns-discovery} ClusterRole in {@code k8s/base}. A kind added without its rule would be refused by the API
 * server in a real cluster (its informer never syncs), and a rule left after its kind is gone grants more than is
 * read: this test fails on either with the difference, and rewrites both blocks when run with
 * {@code -Dmeshdns.rbac.write=true} ({@link #REWRITE}). The rest of both files is written by hand; ManifestsTest
 * (integration-tests) holds k8s/base to api-calls.txt as a whole.
 */
class RbacFromKindsTest {
    static final String REWRITE = "mvn -pl discovery-service test -Dtest=RbacFromKindsTest -Dmeshdns.rbac.write=true";
    static final String BEGIN = "# BEGIN kind rules, generated from discovery-service's kind table (kinds/): " + REWRITE;
    static final String END = "# END kind rules";
    static final Path API_CALLS = Path.of("src/main/resources/META-INF/meshdns/api-calls.txt");
    static final Path ROLE = Path.of(System.getProperty("meshdns.root", "..")).resolve("k8s/base/discovery-service.yaml");

    @Test
    void apiCallsListTheTablesKinds() throws IOException {
        check(API_CALLS, apiCallLines(DiscoveryKinds.ALL));
    }

    @Test
    void theClusterRoleGrantsTheTablesKinds() throws IOException {
        check(ROLE, roleRuleLines(DiscoveryKinds.ALL));
    }

    /** Outside the block no rule lists and watches a whole kind: a kind's rule comes from the table only. */
    @Test
    void noKindRuleIsWrittenByHand() throws IOException {
        List<String> lines = Files.readAllLines(API_CALLS);
        Block block = Block.in(lines, API_CALLS);
        for (int i = 0; i < lines.size(); i++) {
            if (i >= block.begin() && i <= block.end()) continue;
            String[] f = lines.get(i).replaceFirst("#.*", "").trim().split("\\s+");
            boolean kindRule = f.length == 4 && f[0].equals("cluster") && f[3].equals("list,watch");
            assertTrue(!kindRule, API_CALLS + ":" + (i + 1) + " grants a kind outside the generated block: " + lines.get(i));
        }
    }

    /** The comparison shows what differs: a row without its rule, and a rule without its row. */
    @Test
    void theDifferenceNamesAMissingAndAnExtraRule() {
        List<String> generated = apiCallLines(DiscoveryKinds.ALL);
        List<String> found = new ArrayList<>(generated);
        String pods = found.remove(3);
        found.add("cluster core secrets list,watch  # by hand");
        String diff = diff(found, generated);
        assertTrue(diff.contains("+ " + pods), diff);
        assertTrue(diff.contains("- cluster core secrets list,watch  # by hand"), diff);
        assertTrue(diff.contains("  " + generated.get(0)), diff);
    }

    /** api-calls.txt's rules: {@code cluster <group> <resource> list,watch}, in the table's order. */
    static List<String> apiCallLines(List<DiscoveryKind> kinds) {
        List<String> rules = new ArrayList<>();
        int width = 0;
        for (DiscoveryKind k : kinds) {
            String rule = "cluster " + (k.group().isEmpty() ? "core" : k.group()) + " " + k.resource() + " list,watch";
            rules.add(rule);
            width = Math.max(width, rule.length());
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < kinds.size(); i++) {
            DiscoveryKind k = kinds.get(i);
            String why = "cluster.ClusterWatcher, " + k.kindName() + " informer"
                    + (k.optional() ? ", with " + k.switchedBy().key() : "")
                    + (k.custom() ? ", when the CRD is served" : "");
            out.add(String.format("%-" + (width + 2) + "s# %s", rules.get(i), why));
        }
        return out;
    }

    /** The ClusterRole's rules: one per API group, its resources in the table's order, groups in order of first use. */
    static List<String> roleRuleLines(List<DiscoveryKind> kinds) {
        Map<String, List<String>> byGroup = new LinkedHashMap<>();
        for (DiscoveryKind k : kinds) byGroup.computeIfAbsent(k.group(), g -> new ArrayList<>()).add(k.resource());
        List<String> out = new ArrayList<>();
        byGroup.forEach((group, resources) -> {
            out.add("  - apiGroups: [" + (group.isEmpty() ? "\"\"" : group) + "]");
            out.add("    resources: [" + String.join(", ", resources) + "]");
            out.add("    verbs: [list, watch]");
        });
        return out;
    }

    /** The lines of {@code file} between its markers must be {@code generated}; rewritten so when asked. */
    private static void check(Path file, List<String> generated) throws IOException {
        List<String> lines = Files.readAllLines(file);
        Block block = Block.in(lines, file);
        List<String> found = lines.subList(block.begin() + 1, block.end());
        if (found.equals(generated)) return;
        if (Boolean.getBoolean("meshdns.rbac.write")) {
            List<String> rewritten = new ArrayList<>(lines.subList(0, block.begin() + 1));
            rewritten.addAll(generated);
            rewritten.addAll(lines.subList(block.end(), lines.size()));
            Files.writeString(file, String.join("\n", rewritten) + "\n", StandardCharsets.UTF_8);
            assertEquals(generated, Block.in(Files.readAllLines(file), file).of(Files.readAllLines(file)));
            return;
        }
        fail(file.normalize() + ": the kinds' rules differ from the kind table (- in the file, + from the table):\n"
                + diff(found, generated) + "\nRewrite them with: " + REWRITE);
    }

    /** The indexes of a file's BEGIN and END marker lines (each exactly once, BEGIN first). */
    private record Block(int begin, int end) {
        static Block in(List<String> lines, Path file) {
            int begin = -1;
            int end = -1;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).trim();
                if (line.equals(BEGIN)) {
                    if (begin >= 0) fail(file + ": two BEGIN markers");
                    begin = i;
                } else if (line.equals(END)) {
                    if (end >= 0) fail(file + ": two END markers");
                    end = i;
                }
            }
            if (begin < 0 || end < begin) fail(file + ": no generated block, the lines\n" + BEGIN + "\n...\n" + END);
            return new Block(begin, end);
        }

        List<String> of(List<String> lines) {
            return lines.subList(begin + 1, end);
        }
    }

    /** A line diff (longest common subsequence): "- " only in {@code found}, "+ " only in {@code generated}. */
    static String diff(List<String> found, List<String> generated) {
        int[][] common = new int[found.size() + 1][generated.size() + 1];
        for (int i = found.size() - 1; i >= 0; i--) {
            for (int j = generated.size() - 1; j >= 0; j--) {
                common[i][j] = found.get(i).equals(generated.get(j)) ? common[i + 1][j + 1] + 1
                        : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        StringBuilder out = new StringBuilder();
        int i = 0;
        int j = 0;
        while (i < found.size() || j < generated.size()) {
            if (i < found.size() && j < generated.size() && found.get(i).equals(generated.get(j))) {
                out.append("  ").append(found.get(i++)).append('\n');
                j++;
            } else if (j < generated.size() && (i == found.size() || common[i][j + 1] >= common[i + 1][j])) {
                out.append("+ ").append(generated.get(j++)).append('\n');
            } else {
                out.append("- ").append(found.get(i++)).append('\n');
            }
        }
        return out.toString();
    }
}
