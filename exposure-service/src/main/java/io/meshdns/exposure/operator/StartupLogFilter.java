package io.meshdns.exposure.operator;

import io.meshdns.model.startup.FrameworkNoise;
import io.meshdns.model.startup.ServiceStart;
import io.quarkus.logging.LoggingFilter;

import java.util.logging.Filter;
import java.util.logging.LogRecord;

/**
 * Drops the framework's "Failed to start application" stack trace when the failure is a configuration
 * problem: {@link ExposureServiceMain} prints it as one line instead. Also drops the
 * framework lines {@link FrameworkNoise} names. Enabled by {@code quarkus.log.console.filter}.
 */
@LoggingFilter(name = "meshdns-exposure-startup")
public final class StartupLogFilter implements Filter {
    @Override
    public boolean isLoggable(LogRecord record) {
        return !FrameworkNoise.isNoise(record.getMessage()) && ServiceStart.showStartFailure(record.getMessage(), record.getThrown());
    }
}
