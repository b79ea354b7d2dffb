package io.meshdns.dns.operator;

import io.meshdns.kit.ServiceMain;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * dns-service's entry point: {@code --help} prints the main keys, and a bad value stops the start with
 * one line naming it (see {@link ServiceMain}). Named, so that the edge app, which packages dns-service
 * and discovery-service together, keeps its own entry point.
 */
@QuarkusMain(name = "dns-service")
public class DnsServiceMain {
    public static void main(String... args) {
        ServiceMain.run(DnsServiceMain.class, args);
    }
}
