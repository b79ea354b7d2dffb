package io.meshdns.discovery.translate;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ObjectNamesTest {
    @ParameterizedTest(name = "{0} as {1}: {2}")
    @CsvSource({
            "web, DNS_1035_LABEL, true",
            "web-1, DNS_1035_LABEL, true",
            "1web, DNS_1035_LABEL, false",
            "1web, DNS_1123_LABEL, true",
            "web., DNS_1123_SUBDOMAIN, false",
            "a.b, DNS_1035_LABEL, false",
            "a.b, DNS_1123_SUBDOMAIN, true",
            "a..b, DNS_1123_SUBDOMAIN, false",
            "Web, DNS_1123_LABEL, false",
            "web_1, DNS_1123_SUBDOMAIN, false",
            "-web, DNS_1123_LABEL, false",
            "web-, DNS_1123_LABEL, false",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, DNS_1123_LABEL, true",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, DNS_1123_LABEL, false",
    })
    void followsTheApiServersRules(String name, ObjectNames.Rule rule, boolean valid) {
        assertEquals(valid, ObjectNames.matches(name, rule));
    }

    @ParameterizedTest(name = "{0}/{1}")
    @CsvSource({"shop, web\\x0a, metadata.name", "Shop, web, metadata.namespace"})
    void theProblemNamesTheFieldAndEscapesControlBytes(String ns, String name, String field) {
        String n = name.replace("\\x0a", "\n");
        String problem = ObjectNames.problem(new ServiceBuilder().withNewMetadata().withName(n).withNamespace(ns).endMetadata().build(),
                ObjectNames.Rule.DNS_1035_LABEL, true);
        assertTrue(problem.startsWith(field + " '"), problem);
        assertTrue(!problem.contains("\n"), problem);
    }
}
