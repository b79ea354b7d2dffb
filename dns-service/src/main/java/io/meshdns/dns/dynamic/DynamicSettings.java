package io.meshdns.dns.dynamic;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.dns.base.Cidr;
import io.meshdns.dns.base.ConfigValues;
import io.meshdns.dns.tsig.TsigKeyring;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;

import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** {@link DynamicConfig} checked once at start; every failure names its key. */
public record DynamicSettings(Set<Name> zones, TsigKeyring keys, Path journalDir, List<Cidr> allowTransfer) {

    public boolean enabled() {
        return !zones.isEmpty();
    }

    public static DynamicSettings from(DynamicConfig config) {
        return from(config, Clock.systemUTC());
    }

    /** With the clock TSIG times are checked against (tests fix it). */
    public static DynamicSettings from(DynamicConfig config, Clock clock) {
        Set<Name> zones = new LinkedHashSet<>();
        for (String zone : config.dynamicZones().orElse(List.of())) {
            if (zone.isBlank()) {
                continue;
            }
            try {
                zones.add(Name.fromString(zone.trim(), Name.root));
            } catch (TextParseException e) {
                throw new InvalidConfigException(DynamicConfig.DYNAMIC_ZONES, "'" + zone + "' is not a zone name");
            }
        }
        boolean allowTruncated = config.tsig().allowTruncatedMac()
                .map(v -> ConfigValues.parseBoolean(DynamicConfig.ALLOW_TRUNCATED_MAC, v)).orElse(true);
        TsigKeyring keys = TsigKeyring.parse(DynamicConfig.TSIG_KEYS, config.tsigKeys().orElse(List.of()), clock, allowTruncated);
        Path journal = config.journalDir().filter(d -> !d.isBlank()).map(d -> Path.of(d.trim())).orElse(null);
        if (!zones.isEmpty() && journal == null) {
            throw new InvalidConfigException(DynamicConfig.JOURNAL_DIR,
                    "required when " + DynamicConfig.DYNAMIC_ZONES + " is set (dynamic zones must survive a restart)");
        }
        if (!zones.isEmpty() && keys.isEmpty()) {
            throw new InvalidConfigException(DynamicConfig.TSIG_KEYS,
                    "at least one key is required when " + DynamicConfig.DYNAMIC_ZONES + " is set (UPDATE requires TSIG)");
        }
        List<Cidr> allow = ConfigValues.parseCidrs(DynamicConfig.ALLOW_TRANSFER, config.dynamic().allowTransfer().orElse(List.of()));
        return new DynamicSettings(Set.copyOf(zones), keys, journal, allow);
    }
}
