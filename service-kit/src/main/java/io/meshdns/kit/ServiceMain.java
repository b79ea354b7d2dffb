package io.meshdns.kit;

import io.meshdns.model.startup.ServiceHelp;
import io.meshdns.model.startup.ServiceStart;
import io.meshdns.model.startup.StartupConsole;
import io.quarkus.runtime.ApplicationLifecycleManager;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.RegisterForReflection;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Optional;

/**
 * What every service's entry point does: {@code --help} prints the {@code help.txt} beside {@code helpAnchor}, a bad
 * value stops the start with one line naming it ({@link ServiceStart}), then the service runs until asked to stop.
 */
public final class ServiceMain {
    private ServiceMain() {
    }

    public static void run(Class<?> helpAnchor, String... args) {
        ServiceStart.main(args, () -> ServiceHelp.text(helpAnchor, "help.txt"),
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
