package io.meshdns.dnsjava.nativeimage.deployment;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which dnsjava classes a native image must initialise at run time, and why.
 *
 * <p>Quarkus initialises classes at build time unless told otherwise, and whatever a build-time static
 * initialiser computes is frozen into the image heap. For dnsjava's value classes ({@code Name},
 * {@code Type}, {@code DClass}, {@code Rcode}, the TSIG algorithm names, record types...) that is what we
 * want: constants, parsed once. For the classes below it would freeze the build machine into the binary
 * (its resolv.conf nameservers, search path and hosts file, dnsjava's system-property options) or a
 * random generator seeded at build time (every binary would then produce the same DNS message IDs), or
 * threads and selectors that cannot live in an image heap at all.
 *
 * <p>A class is run-time initialised when its top-level class is listed in {@link #RUNTIME_CLASSES}
 * or it lies in a package of {@link #RUNTIME_PACKAGES}; nested classes follow their top-level class.
 * {@code DnsjavaClassificationTest} scans dnsjava's byte code for static state of these kinds and fails
 * when a class holding some is missing here (for instance after a dnsjava upgrade).
 */
public final class DnsjavaClassification {

    /** Top-level classes of {@code org.xbill.DNS}, with the reason they cannot be initialised at build time. */
    public static final Map<String, String> RUNTIME_CLASSES = ordered(
            "org.xbill.DNS.Header", "SecureRandom for message IDs (a build-time seed would repeat in every binary)",
            "org.xbill.DNS.Options", "reads the dnsjava.options system property when initialised",
            "org.xbill.DNS.Lookup", "default resolver, search path, ndots, caches and hosts file of the host",
            "org.xbill.DNS.ResolverConfig", "the host's resolver configuration (resolv.conf, properties, JNDI, Windows)",
            "org.xbill.DNS.SimpleResolver", "default server address (an InetAddress) and sockets",
            "org.xbill.DNS.ExtendedResolver", "resolvers built from the host's resolver configuration",
            "org.xbill.DNS.DohResolver", "HTTP clients, an executor and reflective handles to java.net.http",
            "org.xbill.DNS.NioClient", "selector and selector threads",
            "org.xbill.DNS.NioTcpClient", "extends NioClient (sockets)",
            "org.xbill.DNS.NioUdpClient", "extends NioClient (sockets, random source ports)",
            "org.xbill.DNS.DefaultIoClient", "the shared UDP/TCP client over NioClient",
            "org.xbill.DNS.TCPClient", "sockets",
            "org.xbill.DNS.ZoneTransferIn", "sockets",
            "org.xbill.DNS.TimeoutCompletableFuture", "a scheduler thread pool");

    /** Packages whose every class is run-time initialised. */
    public static final Map<String, String> RUNTIME_PACKAGES = ordered(
            "org.xbill.DNS.config", "the resolver configuration providers: they read the host's files and settings",
            "org.xbill.DNS.spi", "dnsjava as the JDK's host-name resolver (the service is removed as well)",
            "org.xbill.DNS.io", "the I/O client factory and its shared client",
            "org.xbill.DNS.hosts", "the hosts-file parser (the host's /etc/hosts)",
            "org.xbill.DNS.lookup", "lookup sessions over resolvers and the host's search path",
            "org.xbill.DNS.dnssec", "the validating resolver, its key cache and trust anchors",
            "org.xbill.DNS.tools", "command-line tools (sockets, the host's resolver)");

    /** Service files of the dnsjava jar that are removed from the application, in JVM mode and from a native image. */
    public static final Map<String, String> REMOVED_RESOURCES = ordered(
            "META-INF/services/java.net.spi.InetAddressResolverProvider",
            "dnsjava would be a candidate for the JDK's host-name resolver (JDK 18+); meshdns always uses the JDK's own",
            "META-INF/services/sun.net.spi.nameservice.NameServiceDescriptor",
            "the same for JDK 8's name-service interface");

    private DnsjavaClassification() {
    }

    /** Why {@code className} (binary name, {@code $} for nested classes) is initialised at run time, or empty if it may be initialised at build time. */
    public static Optional<String> runtimeReason(String className) {
        int nested = className.indexOf('$');
        String topLevel = nested < 0 ? className : className.substring(0, nested);
        String reason = RUNTIME_CLASSES.get(topLevel);
        if (reason != null) {
            return Optional.of(reason);
        }
        int dot = topLevel.lastIndexOf('.');
        String pkg = dot < 0 ? "" : topLevel.substring(0, dot);
        for (Map.Entry<String, String> p : RUNTIME_PACKAGES.entrySet()) {
            if (pkg.equals(p.getKey()) || pkg.startsWith(p.getKey() + ".")) {
                return Optional.of(p.getValue());
            }
        }
        return Optional.empty();
    }

    /** The class name of a class-file entry of the dnsjava jar ({@code META-INF/versions/N/} stripped), or empty for other entries. */
    public static Optional<String> classNameOf(String jarEntry) {
        String path = jarEntry;
        if (path.startsWith("META-INF/versions/")) {
            int slash = path.indexOf('/', "META-INF/versions/".length());
            if (slash < 0) {
                return Optional.empty();
            }
            path = path.substring(slash + 1);
        }
        if (!path.startsWith("org/xbill/DNS/") || !path.endsWith(".class")) {
            return Optional.empty();
        }
        return Optional.of(path.substring(0, path.length() - ".class".length()).replace('/', '.'));
    }

    private static Map<String, String> ordered(String... keyValue) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValue.length; i += 2) {
            m.put(keyValue[i], keyValue[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(m);
    }
}
