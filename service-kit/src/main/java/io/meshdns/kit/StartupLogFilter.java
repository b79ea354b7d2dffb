package io.meshdns.kit;

import io.meshdns.model.startup.FrameworkNoise;
import io.meshdns.model.startup.ServiceStart;
import io.quarkus.logging.LoggingFilter;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Drops the framework's "Failed to start application" stack trace when the failure is a configuration problem:
 * {@link ServiceMain} prints it as one line instead. Also drops the framework lines {@link FrameworkNoise} names.
 * Every service turns it on with {@code quarkus.log.console.filter=meshdns-startup} (one filter for all four: the
 * edge carries dns-service's and discovery's jars, and a filter name may be registered once).
 */
@LoggingFilter(name = "meshdns-startup")
public final class StartupLogFilter implements Filter {
    @Override
    public boolean isLoggable(LogRecord record) {
        return !FrameworkNoise.isNoise(record.getMessage()) && ServiceStart.showStartFailure(record.getMessage(), record.getThrown());
    }
}
