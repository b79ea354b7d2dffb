package io.meshdns.dns.server;

import java.util.HashMap;
import java.util.Map;

/**
 * The TCP caps of {@link TcpLimitsProfile} with idle timeout and maximum age far beyond a test's length: every
 * close the eviction test sees is then an eviction, however slowly a loaded machine runs it.
 */
public class TcpEvictionProfile extends TcpLimitsProfile {
    @Override
    protected Map<String, String> overrides() {
        Map<String, String> overrides = new HashMap<>(super.overrides());
        overrides.put("meshdns.dns.tcp.idle-timeout", "120s");
        overrides.put("meshdns.dns.tcp.max-connection-age", "10m");
        return overrides;
    }
}
