package io.meshdns.dnsjava.nativeimage.deployment;

import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.nativeimage.NativeImageResourcePatternsBuildItem;

import java.util.List;

/**
 * The resources a native image of any meshdns application must carry, declared once for all four (this
 * extension is in every application). A resource missing from a native image fails only when it is read, so
 * each entry says who reads it; integration-tests' {@code NativeImageInputsTest} checks every application's
 * generated native-image configuration against the resources our code reads and ships.
 */
public final class NativeResourcesProcessor {

    /**
     * Resource globs and who reads them at run time. Nothing else of ours is read at run time: the
     * {@code META-INF/meshdns/*.txt} listings (API calls, the dnsjava classification) are for tests and operators
     * reading the jar.
     */
    public static final List<String[]> INCLUDED = List.of(
            new String[]{"io/meshdns/**/help.txt", "each service's --help text (ServiceHelp, on --help only)"},
            new String[]{"META-INF/native/libnetty_transport_native_epoll_*.so",
                    "Netty's epoll JNI library, extracted and loaded at start: without it Netty falls back to NIO"
                            + " in a native image, silently (no recvmmsg/sendmmsg, no SO_REUSEPORT: no zero-gap upgrade)"});

    @BuildStep
    NativeImageResourcePatternsBuildItem resources() {
        NativeImageResourcePatternsBuildItem.Builder builder = NativeImageResourcePatternsBuildItem.builder();
        for (String[] entry : INCLUDED) {
            builder.includeGlob(entry[0]);
        }
        return builder.build();
    }
}
