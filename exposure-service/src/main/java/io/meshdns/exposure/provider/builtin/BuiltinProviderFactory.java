package io.meshdns.exposure.provider.builtin;

import io.meshdns.exposure.provider.Provider;
import io.meshdns.exposure.provider.ProviderContext;
import io.meshdns.exposure.provider.ProviderFactory;
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
public final class BuiltinProviderFactory implements ProviderFactory {

    private final Rfc2136Config rfc2136;
    private final BuiltinConfig builtin;

    public BuiltinProviderFactory(Rfc2136Config rfc2136, BuiltinConfig builtin) {
        this.rfc2136 = rfc2136;
        this.builtin = builtin;
    }

    /** dns-service has no ExternalDNS counterpart; records without a TTL get the one meshdns always wrote. */
    public static final long DEFAULT_TTL = 300;

    @Override
    public String name() {
        return "builtin";
    }

    @Override
    public List<Provider> create(ProviderContext context) {
        List<String> list = builtin.targets().orElse(List.of());
        ProviderKeys.check(!list.isEmpty(), "meshdns.exposure.builtin.targets",
                "at least one host:port is required with meshdns.exposure.provider=builtin");
        ProviderKeys.check(Rfc2136ProviderFactory.tsig(rfc2136).isPresent(), "meshdns.exposure.rfc2136.tsig-key-name",
                "the builtin provider requires TSIG (dns-service refuses unsigned UPDATEs)");
        var out = new ArrayList<Provider>();
        for (String t : list) {
            int colon = t.lastIndexOf(':');
            ProviderKeys.check(colon > 0, "meshdns.exposure.builtin.targets", "'" + t + "' is not host:port");
            int port;
            try {
                port = Integer.parseInt(t.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("meshdns.exposure.builtin.targets: '" + t + "' has no numeric port");
            }
            String host = t.substring(0, colon).replace("[", "").replace("]", "");
            out.add(new Rfc2136Provider(Rfc2136ProviderFactory.settings(rfc2136, host,
                    ProviderKeys.port("meshdns.exposure.builtin.targets", port), context, DEFAULT_TTL)));
        }
        return out;
    }
}
