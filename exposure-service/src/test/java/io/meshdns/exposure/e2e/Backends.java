package io.meshdns.exposure.e2e;

import io.meshdns.exposure.provider.TxtQuoting;
import io.meshdns.testsupport.dns.DnsServer;
import io.meshdns.testsupport.dns.EtcdServer;
import io.meshdns.testsupport.dns.PowerDnsServer;
import io.meshdns.testsupport.webhook.StrictWebhookProvider;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The real backends of the end-to-end tests, one Quarkus test resource each, every one seeded with
 * a foreign record ({@code foreign.mesh.test A 192.0.2.99}) that must never be touched. Each also
 * answers "what does the backend hold for this name and type" in plain text.
 */
final class Backends {

    private Backends() {
    }

    /** What the running backend holds: targets of (name, type), TXT as plain text, sorted. */
    interface Reader {
        List<String> read(String name, String type) throws Exception;
    }

    static volatile Reader reader;

    public static class Webhook implements QuarkusTestResourceLifecycleManager {
        static StrictWebhookProvider server;

        @Override
        public Map<String, String> start() {
            try {
                server = new StrictWebhookProvider(List.of("mesh.test"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            server.seed("foreign.mesh.test", "A", 300, "192.0.2.99");
            reader = (name, type) -> server.targets(name, type).stream().map(t -> type.equals("TXT") ? TxtQuoting.unquote(t) : t).sorted().toList();
            return Map.of("meshdns.exposure.provider", "webhook", "meshdns.exposure.webhook.url", server.url());
        }

        @Override
        public void stop() {
            if (server != null) server.close();
        }
    }

    public static class Pdns implements QuarkusTestResourceLifecycleManager {
        static PowerDnsServer pdns;

        @Override
        public Map<String, String> start() {
            try {
                pdns = new PowerDnsServer().start();
                pdns.createZone("mesh.test",
                        "{\"name\":\"foreign.mesh.test.\",\"type\":\"A\",\"ttl\":300,\"records\":[{\"content\":\"192.0.2.99\",\"disabled\":false}]}");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            reader = (name, type) -> dig(pdns.dnsPort(), name, type);
            return Map.of("meshdns.exposure.provider", "pdns", "meshdns.exposure.pdns.server", pdns.apiUrl(),
                    "meshdns.exposure.pdns.api-key", pdns.apiKey());
        }

        @Override
        public void stop() {
            try {
                if (pdns != null) pdns.close();
            } catch (Exception ignored) {
                // temp dir cleanup best effort
            }
        }
    }

    public static class Coredns implements QuarkusTestResourceLifecycleManager {
        static EtcdServer etcd;

        @Override
        public Map<String, String> start() {
            try {
                etcd = new EtcdServer().start();
                etcd.put("/skydns/test/mesh/foreign/hand", "{\"host\":\"192.0.2.99\",\"targetstrip\":1}");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            reader = (name, type) -> {
                var out = new ArrayList<String>();
                var labels = new ArrayList<>(List.of(name.split("\\.")));
                Collections.reverse(labels);
                String key = "/skydns/" + String.join("/", labels) + "/";
                for (var e : etcd.range(key).entrySet()) {
                    if (e.getKey().substring(key.length()).contains("/")) continue;
                    var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(e.getValue());
                    String host = node.path("host").asText("");
                    String text = node.path("text").asText("");
                    boolean isA = host.matches("[0-9.]+");
                    if (type.equals("TXT") && !text.isEmpty()) out.add(TxtQuoting.unquote(text));
                    if (type.equals("A") && isA) out.add(host);
                    if (type.equals("CNAME") && !host.isEmpty() && !isA && !host.contains(":")) out.add(host);
                }
                Collections.sort(out);
                return out;
            };
            return Map.of("meshdns.exposure.provider", "coredns", "meshdns.exposure.coredns.etcd-urls", etcd.clientUrl());
        }

        @Override
        public void stop() {
            try {
                if (etcd != null) etcd.close();
            } catch (Exception ignored) {
                // temp dir cleanup best effort
            }
        }
    }

    /** dig's answer lines as the other backends' readers give them: TXT unquoted, CNAME targets without the final dot. */
    static List<String> dig(int port, String name, String type) throws Exception {
        var lines = new ArrayList<String>();
        for (String t : DnsServer.dig(port, name, type)) {
            if (type.equals("TXT")) t = TxtQuoting.unquote(t);
            if (type.equals("CNAME") && t.endsWith(".")) t = t.substring(0, t.length() - 1);
            lines.add(t);
        }
        lines.sort(null);
        return lines;
    }

    public static class WebhookProfile implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(Webhook.class));
        }
    }

    public static class PdnsProfile implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(Pdns.class));
        }
    }

    public static class CorednsProfile implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(Coredns.class));
        }
    }
}
