package io.meshdns.dns.operator;

import io.meshdns.model.startup.ServiceHelp;
import io.meshdns.model.startup.ServiceStart;
import io.meshdns.model.startup.StartupConsole;
import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import io.quarkus.runtime.annotations.RegisterForReflection;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Optional;

/**
 * dns-service's entry point: {@code --help} prints the main keys, and a bad value stops the start with
 * one line naming it (see {@link ServiceStart}). Named, so that the edge app, which packages dns-service
 * and discovery-service together, keeps its own entry point.
 */
@QuarkusMain(name = "dns-service")
public class DnsServiceMain {
    public static void main(String... args) {
        ServiceStart.main(args, () -> ServiceHelp.text(DnsServiceMain.class, "help.txt"),
                ServiceStart.valueLookup(key -> Optional.ofNullable(ConfigProvider.getConfig().getConfigValue(key).getRawValue())),
                exit -> Quarkus.run(Running.class, exit, args),
                ApplicationLifecycleManager.getDefaultExitCodeHandler());
    }

    /** Runs until the service is asked to stop; what the framework's generated main does, plus releasing stderr. */
    @RegisterForReflection // the lifecycle manager instantiates it by its class
    public static class Running implements QuarkusApplication {
        @Override
        public int run(String... args) {
            StartupConsole.release();
            Quarkus.waitForExit();
            return 0;
        }
    }
}
