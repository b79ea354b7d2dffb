package io.meshdns.dns.zonefile;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.dns.server.DnsServer;
import io.meshdns.dns.server.ServerSettings;
import io.meshdns.dns.snapshot.SnapshotStore;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Registers the configured zone files and hosts files with the {@link SnapshotStore} at start
 * (before the listeners bind) and polls them for changes on one background thread, never on an
 * event loop. A file that is missing or does not parse at start stops the service, naming the key.
 */
@ApplicationScoped
public class FileSources {
    private static final Logger LOG = Logger.getLogger(FileSources.class);

    @Inject
    FileSourceConfig config;
    @Inject
    SnapshotStore store;

    private final List<FileRecordSource> sources = new ArrayList<>();
    private ScheduledExecutorService poller;

    void onStart(@Observes @Priority(DnsServer.STARTUP_PRIORITY - 100) StartupEvent event) {
        Duration interval = ServerSettings.parseDuration(FileSourceConfig.RELOAD_INTERVAL, config.reloadInterval());
        long ttl = parseTtl(config.hostsTtl());
        for (String file : nonBlank(config.zoneFiles().orElse(List.of()))) {
            register(FileSourceConfig.ZONE_FILES, FileRecordSource.zoneFile(Path.of(file)));
        }
        for (String file : nonBlank(config.hostsFiles().orElse(List.of()))) {
            register(FileSourceConfig.HOSTS_FILES, FileRecordSource.hostsFile(Path.of(file), ttl));
        }
        if (!sources.isEmpty()) {
            poller = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "meshdns-file-reload");
                t.setDaemon(true);
                return t;
            });
            poller.scheduleWithFixedDelay(this::poll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void register(String key, FileRecordSource source) {
        try {
            store.register(source);
            sources.add(source);
        } catch (Exception e) {
            throw new InvalidConfigException(key, e.getMessage(), e);
        }
    }

    private void poll() {
        for (FileRecordSource source : sources) {
            try {
                source.checkForChange();
            } catch (RuntimeException e) {
                LOG.errorf(e, "polling %s", source.id());
            }
        }
    }

    private static long parseTtl(String value) {
        try {
            long ttl = Long.parseLong(value.trim());
            if (ttl >= 0 && ttl <= 0x7fffffffL) {
                return ttl;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new InvalidConfigException(FileSourceConfig.HOSTS_TTL, "'" + value + "' is not a TTL in seconds (0..2147483647)");
    }

    private static List<String> nonBlank(List<String> values) {
        return values.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    void onStop(@Observes ShutdownEvent event) {
        if (poller != null) {
            poller.shutdownNow();
        }
    }
}
