package io.meshdns.dnsjava.nativeimage;

import com.oracle.svm.core.annotate.Delete;
import com.oracle.svm.core.annotate.Substitute;
import com.oracle.svm.core.annotate.TargetClass;
import java.net.InetSocketAddress;
import java.util.List;
import org.xbill.DNS.Name;
import org.xbill.DNS.config.InitializationException;

/**
 * dnsjava's Windows resolver configuration, removed from native images. On a JVM it reads the Windows
 * adapters' DNS servers through JNA; a native image of meshdns runs on Linux only and carries no JNA, and
 * the JNA-backed inner class cannot even be initialised without it. With these substitutions the
 * provider is a constant "not enabled" (what it answers on every non-Windows JVM as well), so
 * {@code ResolverConfig} skips it and nothing in the image refers to JNA.
 *
 * <p>Read by native-image only; on a JVM these classes are never loaded.
 */
final class WindowsResolverConfigSubstitutions {
    private WindowsResolverConfigSubstitutions() {
    }
}

@TargetClass(className = "org.xbill.DNS.config.WindowsResolverConfigProvider")
final class Target_org_xbill_DNS_config_WindowsResolverConfigProvider {

    /** The JNA-backed delegate, which only the original constructor sets (on Windows). */
    @Delete
    private Target_org_xbill_DNS_config_WindowsResolverConfigProvider_InnerWindowsResolverConfigProvider inner;

    @Substitute
    public Target_org_xbill_DNS_config_WindowsResolverConfigProvider() {
    }

    @Substitute
    public void initialize() throws InitializationException {
        // Nothing to read: ResolverConfig initialises enabled providers only, and this one never is.
    }

    @Substitute
    public List<InetSocketAddress> servers() {
        return List.of();
    }

    @Substitute
    public List<Name> searchPaths() {
        return List.of();
    }

    @Substitute
    public boolean isEnabled() {
        return false;
    }
}

@TargetClass(className = "org.xbill.DNS.config.WindowsResolverConfigProvider$InnerWindowsResolverConfigProvider")
@Delete
final class Target_org_xbill_DNS_config_WindowsResolverConfigProvider_InnerWindowsResolverConfigProvider {
}
