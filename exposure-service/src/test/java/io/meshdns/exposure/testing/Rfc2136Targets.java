package io.meshdns.exposure.testing;

import io.meshdns.exposure.provider.rfc2136.Rfc2136Provider;
import io.meshdns.exposure.provider.rfc2136.TsigKeys;
import io.meshdns.testsupport.dns.DnsServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.xbill.DNS.TSIG;

/** The rfc2136 provider aimed at a BIND9/Knot launched by test-support, with its TSIG key. */
public final class Rfc2136Targets {

    private Rfc2136Targets() {
    }

    public static TSIG tsig(DnsServer<?> server) {
        return TsigKeys.create(DnsServer.KEY_NAME, server.secret(), server.algorithm());
    }

    public static Rfc2136Provider provider(DnsServer<?> server) {
        return provider(server, server.zones());
    }

    /** A provider that manages only the given zones of this server (records without a TTL get 300). */
    public static Rfc2136Provider provider(DnsServer<?> server, List<String> managedZones) {
        return new Rfc2136Provider(new Rfc2136Provider.Settings("127.0.0.1", server.port(), managedZones, Optional.of(tsig(server)),
                Duration.ofSeconds(10), 300));
    }
}
