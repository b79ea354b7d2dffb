package io.meshdns.dns.zonefile;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.dns.base.ConfigValues;
import io.meshdns.dns.base.DaemonThreads;
import io.meshdns.dns.snapshot.RecordSource;
import io.meshdns.dns.snapshot.ZoneContent;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;
import org.xbill.DNS.Name;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The configured zone files and hosts files, as one {@link RecordSource}: loaded at start (before the
 * listeners bind) and polled for changes on one background thread, never on an event loop. A file that is
 * missing or does not parse at start stops the service, naming the key; a later broken edit keeps the
 * file's last good content. The source publishes the content of every file together, so a change to one
 * file recompiles the zones of all of them (files are few; the discovery feed, which changes often, patches).
 */
@ApplicationScoped
public class FileSources implements RecordSource {
    private static final Logger LOG = Logger.getLogger(FileSources.class);
    static final String ID = "files";

    @Inject
    FileSourceConfig config;

    private final Map<WatchedFile, List<ZoneContent>> contentByFile = new LinkedHashMap<>();
    private Sink sink;
    private ScheduledExecutorService poller;

    @Override
    public String id() {
        return ID;
    }

    @Override
    public synchronized void start(Sink sink) {
        this.sink = sink;
        Duration interval = ConfigValues.parseDuration(FileSourceConfig.RELOAD_INTERVAL, config.reloadInterval());
        long ttl = parseTtl(config.hostsTtl());
        for (String file : nonBlank(config.zoneFiles().orElse(List.of()))) {
            load(FileSourceConfig.ZONE_FILES, WatchedFile.zoneFile(Path.of(file)));
        }
        for (String file : nonBlank(config.hostsFiles().orElse(List.of()))) {
            load(FileSourceConfig.HOSTS_FILES, WatchedFile.hostsFile(Path.of(file), ttl));
        }
        if (contentByFile.isEmpty()) {
            return;
        }
        publishAll();
        poller = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("meshdns-file-reload"));
        poller.scheduleWithFixedDelay(this::poll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void load(String key, WatchedFile file) {
        try {
            file.start(content -> changed(file, content));
        } catch (Exception e) {
            throw new InvalidConfigException(key, e.getMessage(), e);
        }
    }

    /** A file (re)loaded: at start only recorded (published once, all together), later published at once. */
    private synchronized void changed(WatchedFile file, List<ZoneContent> content) {
        boolean starting = !contentByFile.containsKey(file);
        contentByFile.put(file, content);
        if (!starting) publishAll();
    }

    private void publishAll() {
        List<ZoneContent> all = new ArrayList<>();
        contentByFile.values().forEach(all::addAll);
        sink.publish(all, null);
    }

    @Override
    public synchronized List<String> inputs() {
        return contentByFile.keySet().stream().map(WatchedFile::id).toList();
    }

    @Override
    public synchronized String originOf(Name origin) {
        for (Map.Entry<WatchedFile, List<ZoneContent>> e : contentByFile.entrySet()) {
            for (ZoneContent z : e.getValue()) {
                if (z.authoritative() && z.origin().equals(origin)) return e.getKey().id();
            }
        }
        return ID;
    }

    private void poll() {
        for (WatchedFile file : List.copyOf(contentByFile.keySet())) {
            try {
                file.checkForChange();
            } catch (RuntimeException e) {
                LOG.errorf(e, "polling %s", file.id());
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

    @Override
    public void stop() {
        if (poller != null) {
            poller.shutdownNow();
        }
    }

    void onStop(@Observes ShutdownEvent event) {
        stop();
    }
}
