package io.meshdns.dns.zonefile;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.util.List;
import java.util.Optional;

/** Zone files and hosts files: what to load and how often to look for changes. */
@ConfigMapping(prefix = "meshdns.dns")
public interface FileSourceConfig {
    String ZONE_FILES = "meshdns.dns.zone-files";
    String HOSTS_FILES = "meshdns.dns.hosts-files";
    String RELOAD_INTERVAL = "meshdns.dns.reload-interval";
    String HOSTS_TTL = "meshdns.dns.hosts-ttl";

    /** RFC 1035 master files; each defines the zone of its SOA (use $ORIGIN or absolute names). */
    Optional<List<String>> zoneFiles();

    /** Files in /etc/hosts format, answered with AA; names absent from them are forwarded. */
    Optional<List<String>> hostsFiles();

    /** How often the files' modification times are checked; a changed file is reloaded. */
    @WithDefault("2s")
    String reloadInterval();

    /** TTL of records made from hosts files (CoreDNS's hosts plugin uses 3600 too). */
    @WithDefault("3600")
    String hostsTtl();
}
