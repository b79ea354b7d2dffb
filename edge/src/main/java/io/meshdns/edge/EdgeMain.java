package io.meshdns.edge;

import io.meshdns.kit.ServiceMain;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * The edge app's entry point: dns-service's start (a bad value of either half stops it with one line naming the
 * key), with the edge's own {@code --help}: the edge runs both services and its usage names its own jar and keys.
 */
@QuarkusMain(name = "edge")
public class EdgeMain {
    public static void main(String... args) {
        ServiceMain.run(EdgeMain.class, args);
    }
}
