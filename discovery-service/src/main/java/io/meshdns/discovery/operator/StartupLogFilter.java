package io.meshdns.discovery.operator;

import io.meshdns.model.startup.ServiceStart;
import io.quarkus.logging.LoggingFilter;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Drops the framework's "Failed to start application" stack trace when the failure is a configuration
 * problem: {@link DiscoveryServiceMain} prints it as one line instead. Enabled by {@code quarkus.log.console.filter}.
 */
@LoggingFilter(name = "meshdns-discovery-startup")
public final class StartupLogFilter implements Filter {
    @Override
    public boolean isLoggable(LogRecord record) {
        return ServiceStart.showStartFailure(record.getMessage(), record.getThrown());
    }
}
