package io.meshdns.edge;

import io.meshdns.dns.operator.DnsServiceMain;
import io.meshdns.model.startup.ServiceHelp;
import io.meshdns.model.startup.ServiceStart;
import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Optional;

/**
 * The edge app's entry point: dns-service's start (a bad value of either half stops it with one line naming the
 * key), with the edge's own {@code --help}: the edge runs both services and its usage names its own jar and keys.
 */
@QuarkusMain(name = "edge")
public class EdgeMain {
    public static void main(String... args) {
        ServiceStart.main(args, () -> ServiceHelp.text(EdgeMain.class, "help.txt"),
                ServiceStart.valueLookup(key -> Optional.ofNullable(ConfigProvider.getConfig().getConfigValue(key).getRawValue())),
                exit -> Quarkus.run(DnsServiceMain.Running.class, exit, args),
                ApplicationLifecycleManager.getDefaultExitCodeHandler());
    }
}
