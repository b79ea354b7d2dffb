package io.meshdns.discovery.clusterhealth;

/**
 * One cluster's gateway health with hysteresis, pure: the verdict changes only after {@code unhealthyThreshold}
 * failed probes in a row (from healthy) or {@code healthyThreshold} good ones in a row (from unhealthy), so a
 * flapping gateway cannot flap the nodes' answers faster than that. A gateway never probed yet counts as healthy
 * (fail-open: no verdict is no reason to drop a cluster).
 */
public record GatewayHealth(boolean healthy, int streak, long sinceEpochMillis) {
    public static GatewayHealth initial(long nowEpochMillis) {
        return new GatewayHealth(true, 0, nowEpochMillis);
    }

    /** The state after one probe; {@code streak} counts the probes in a row that disagreed with the verdict. */
    public GatewayHealth after(boolean probeOk, int unhealthyThreshold, int healthyThreshold, long nowEpochMillis) {
        if (probeOk == healthy) {
            return streak == 0 ? this : new GatewayHealth(healthy, 0, sinceEpochMillis);
        }
        int disagreeing = streak + 1;
        if (disagreeing >= (healthy ? unhealthyThreshold : healthyThreshold)) {
            return new GatewayHealth(!healthy, 0, nowEpochMillis);
        }
        return new GatewayHealth(healthy, disagreeing, sinceEpochMillis);
    }
}
