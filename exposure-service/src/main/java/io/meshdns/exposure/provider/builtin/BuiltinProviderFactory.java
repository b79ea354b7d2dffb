package io.meshdns.exposure.provider.builtin;

import io.meshdns.exposure.provider.AbstractProviderFactory;
import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderContext;
import io.meshdns.exposure.provider.ProviderKeys;
import io.meshdns.exposure.provider.rfc2136.Rfc2136Config;
import io.meshdns.exposure.provider.rfc2136.Rfc2136Provider;
import io.meshdns.exposure.provider.rfc2136.Rfc2136ProviderFactory;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code meshdns.exposure.provider=builtin}: the rfc2136 provider aimed at each dns-service replica,
 * each read and reconciled on its own so a replica that missed updates is repaired. TSIG is required.
 */
@Singleton
public final class BuiltinProviderFactory extends AbstractProviderFactory<BuiltinConfig> {

    private final Rfc2136Config rfc2136;

    public BuiltinProviderFactory(Rfc2136Config rfc2136, BuiltinConfig builtin) {
        super("builtin", builtin);
        this.rfc2136 = rfc2136;
    }

    /** dns-service has no ExternalDNS counterpart; records without a TTL get the one meshdns always wrote. */
    public static final long DEFAULT_TTL = 300;

    @Override
    public List<Provider> create(ProviderContext context) {
        List<String> list = config.targets().orElse(List.of());
        ProviderKeys.check(!list.isEmpty(), key("targets"),
                "at least one host:port is required with meshdns.exposure.provider=builtin");
        ProviderKeys.check(Rfc2136ProviderFactory.tsig(rfc2136).isPresent(), "meshdns.exposure.rfc2136.tsig-key-name",
                "the builtin provider requires TSIG (dns-service refuses unsigned UPDATEs)");
        var out = new ArrayList<Provider>();
        for (String t : list) {
            int colon = t.lastIndexOf(':');
            ProviderKeys.check(colon > 0, key("targets"), "'" + t + "' is not host:port");
            int port;
            try {
                port = Integer.parseInt(t.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key("targets") + ": '" + t + "' has no numeric port");
            }
            String host = t.substring(0, colon).replace("[", "").replace("]", "");
            out.add(new Rfc2136Provider(Rfc2136ProviderFactory.settings(rfc2136, host,
                    ProviderKeys.port(key("targets"), port), context, DEFAULT_TTL)));
        }
        return out;
    }
}
