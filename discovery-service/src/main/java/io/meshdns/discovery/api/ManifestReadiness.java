package io.meshdns.discovery.api;

import io.meshdns.discovery.cluster.ClusterManager;
import io.meshdns.discovery.manifest.ManifestSource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import java.nio.file.Path;
import java.util.Map;

/**
 * Not ready while the manifest source knows the catalog misses content: a file rejected every time
 * since start (too large, too deep, unparsable) or a pass that failed as a whole. Serving then would
 * make every node answer NXDOMAIN for that file's names, so the replica stays out of its Service
 * until the file is fixed or removed. A file that turned bad later keeps its last objects and only
 * shows under {@code rejected}.
 */
@Readiness
@ApplicationScoped
public class ManifestReadiness implements HealthCheck {
    @Inject
    ClusterManager clusters;

    @Override
    public HealthCheckResponse call() {
        ManifestSource source = clusters.manifests();
        HealthCheckResponseBuilder b = HealthCheckResponse.named("discovery-manifests");
        if (source == null) {
            return b.up().withData("configured", false).build();
        }
        Map<Path, String> rejected = source.rejectedFiles();
        b.status(source.healthy()).withData("rejected", rejected.size());
        rejected.forEach((file, why) -> b.withData(file.toString(), why));
        return b.build();
    }
}
