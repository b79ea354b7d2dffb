package io.meshdns.it.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A service's Kubernetes API calls ({@code META-INF/meshdns/api-calls.txt} beside its code) and the
 * rights RBAC objects grant a ServiceAccount, both as sets of single grants, so they compare both ways.
 */
final class ApiCalls {
    /** One verb on one resource: {@code scope} is "cluster" (ClusterRole) or "namespace" (its own namespace). */
    record Grant(String scope, String group, String resource, String verb, String resourceName) implements Comparable<Grant> {
        @Override
        public int compareTo(Grant o) {
            return toString().compareTo(o.toString());
        }

        @Override
        public String toString() {
            return scope + " " + (group.isEmpty() ? "core" : group) + " " + resource + " " + verb
                    + (resourceName.isEmpty() ? "" : " " + resourceName);
        }
    }

    private ApiCalls() {
    }

    static Path file(String module) {
        return Path.of(System.getProperty("meshdns.root", "..")).resolve(module)
                .resolve("src/main/resources/META-INF/meshdns/api-calls.txt");
    }

    /** The grants a service's list names. */
    static Set<Grant> listed(String module) {
        Set<Grant> out = new TreeSet<>();
        try {
            for (String line : Files.readAllLines(file(module))) {
                int hash = line.indexOf('#');
                String rule = (hash >= 0 ? line.substring(0, hash) : line).trim();
                if (rule.isEmpty()) continue;
                String[] f = rule.split("\\s+");
                if (f.length < 4 || f.length > 5 || !(f[0].equals("cluster") || f[0].equals("namespace"))) {
                    throw new IllegalArgumentException(file(module) + ": not '<scope> <group> <resource> <verbs> [<name>]': " + line);
                }
                String group = f[1].equals("core") ? "" : f[1];
                for (String verb : f[3].split(",")) {
                    out.add(new Grant(f[0], group, f[2], verb, f.length == 5 ? f[4] : ""));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /**
     * The grants the RBAC objects give ServiceAccount {@code namespace/name}: ClusterRoleBindings give
     * their ClusterRole's rules cluster-wide, RoleBindings give their Role's (or ClusterRole's) rules in
     * the binding's namespace, which must be the account's own.
     */
    static Set<Grant> granted(List<HasMetadata> objects, String namespace, String name) {
        Set<Grant> out = new TreeSet<>();
        for (ClusterRoleBinding b : Manifests.all(objects, ClusterRoleBinding.class)) {
            if (binds(b.getSubjects(), namespace, name)) {
                expand(out, "cluster", rules(objects, b.getRoleRef(), null));
            }
        }
        for (RoleBinding b : Manifests.all(objects, RoleBinding.class)) {
            if (!binds(b.getSubjects(), namespace, name)) continue;
            if (!namespace.equals(b.getMetadata().getNamespace())) {
                throw new AssertionError("RoleBinding " + b.getMetadata().getName() + " grants " + name + " rights in "
                        + b.getMetadata().getNamespace() + ", not its own namespace");
            }
            expand(out, "namespace", rules(objects, b.getRoleRef(), namespace));
        }
        return out;
    }

    private static boolean binds(List<Subject> subjects, String namespace, String name) {
        return subjects != null && subjects.stream().anyMatch(s -> "ServiceAccount".equals(s.getKind())
                && name.equals(s.getName()) && namespace.equals(s.getNamespace()));
    }

    private static List<PolicyRule> rules(List<HasMetadata> objects, RoleRef ref, String namespace) {
        if (ref.getKind().equals("ClusterRole")) {
            return Manifests.find(objects, ClusterRole.class, ref.getName()).getRules();
        }
        Role role = Manifests.all(objects, Role.class).stream()
                .filter(r -> r.getMetadata().getName().equals(ref.getName()) && namespace.equals(r.getMetadata().getNamespace()))
                .findFirst().orElseThrow(() -> new AssertionError("no Role " + namespace + "/" + ref.getName()));
        return role.getRules();
    }

    private static void expand(Set<Grant> out, String scope, List<PolicyRule> rules) {
        for (PolicyRule r : rules) {
            if (r.getNonResourceURLs() != null && !r.getNonResourceURLs().isEmpty()) {
                throw new AssertionError("non-resource rule " + r.getNonResourceURLs() + ": no service calls one");
            }
            List<String> names = r.getResourceNames() == null || r.getResourceNames().isEmpty() ? List.of("") : r.getResourceNames();
            for (String g : r.getApiGroups()) {
                for (String res : r.getResources()) {
                    for (String v : r.getVerbs()) {
                        if (g.equals("*") || res.equals("*") || v.equals("*")) {
                            throw new AssertionError("wildcard rule " + r + ": grant what is called, by name");
                        }
                        for (String n : names) out.add(new Grant(scope, g, res, v, n));
                    }
                }
            }
        }
    }
}
