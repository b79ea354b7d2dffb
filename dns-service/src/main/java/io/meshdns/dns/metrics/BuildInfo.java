package io.meshdns.dns.metrics;

import org.eclipse.microprofile.config.ConfigProvider;

/** The labels of {@code coredns_build_info}: the application's version, and the revision when the build recorded one. */
public final class BuildInfo {
    private BuildInfo() {
    }

    /** {@code quarkus.application.version}: the project version the build recorded; "unknown" outside a Quarkus build. */
    public static String version() {
        return value("quarkus.application.version");
    }

    /** {@code meshdns.build.revision}, set by an image build ({@code -Dmeshdns.build.revision=$(git rev-parse HEAD)}). */
    static String revision() {
        return value("meshdns.build.revision");
    }

    private static String value(String key) {
        try {
            return ConfigProvider.getConfig().getOptionalValue(key, String.class).orElse("unknown");
        } catch (RuntimeException e) {
            return "unknown";
        }
    }
}
