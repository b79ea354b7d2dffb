package io.meshdns.dns.operator;

import io.meshdns.model.startup.ServiceStart;
import io.quarkus.logging.LoggingFilter;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Drops the framework's "Failed to start application" stack trace when the failure is a configuration
 * problem: {@link DnsServiceMain} prints it as one line instead. Enabled by {@code quarkus.log.console.filter}.
 */
@LoggingFilter(name = "meshdns-dns-startup")
public final class StartupLogFilter implements Filter {
    @Override
    public boolean isLoggable(LogRecord record) {
        return ServiceStart.showStartFailure(record.getMessage(), record.getThrown());
    }
}
