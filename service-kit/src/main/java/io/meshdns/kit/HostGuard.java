package io.meshdns.kit;

import io.meshdns.model.operator.HostAllowlist;
import io.vertx.ext.web.Router;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The Host allowlist (the defence against DNS rebinding, {@link HostAllowlist}) in front of every route of a port.
 * Each service's status page installs it; the edge app, which serves every service's pages on one port, gets it
 * once per router however many pages ask.
 */
public final class HostGuard {
    private static final Set<Router> GUARDED = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private HostGuard() {
    }

    public static void install(Router router) {
        if (!GUARDED.add(router)) return;
        HostAllowlist hosts = HostAllowlist.fromConfig(k -> ConfigProvider.getConfig().getOptionalValues(k, String.class));
        router.route().order(HostAllowlist.ROUTE_ORDER).handler(rc -> {
            if (rc.request().isSSL() || hosts.allows(rc.request().getHeader("Host"))) rc.next();
            else rc.response().setStatusCode(403).putHeader("Content-Type", "text/plain").end(hosts.refusal());
        });
    }
}
