package io.meshdns.dns.dynamic;

import io.meshdns.dns.InvalidConfigException;
import io.meshdns.dns.base.DaemonThreads;
import io.meshdns.dns.snapshot.RecordSource;
import io.meshdns.dns.snapshot.ZoneContent;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The dynamic zones: loads each from its journal at start (before the listeners bind), applies
 * UPDATEs one at a time on a single writer thread (never on an event loop: the journal fsyncs), and
 * publishes every new version through the {@link RecordSource} seam, so the next query sees it.
 * Order per UPDATE: compute the next version (pure), append it to the journal and fsync, then swap
 * it in and answer. A failed journal write answers SERVFAIL and changes nothing.
 */
@ApplicationScoped
public class DynamicZones implements RecordSource {
    private static final Logger LOG = Logger.getLogger(DynamicZones.class);
    static final String SOURCE_ID = "dynamic-zones";

    @Inject
    DynamicConfig config;

    private DynamicSettings settings;
    private final Map<Name, ZoneJournal> journals = new LinkedHashMap<>();
    private final Map<Name, ZoneData> zones = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile Sink sink;
    private ExecutorService writer;

    @Override
    public String id() {
        return SOURCE_ID;
    }

    /** Loads every dynamic zone from its journal; the snapshot store calls this before the listeners bind. */
    @Override
    public void start(Sink sink) throws Exception {
        DynamicSettings settings = settings();
        if (!settings.enabled()) {
            return;
        }
        for (Name origin : settings.zones()) {
            ZoneJournal.Loaded loaded;
            try {
                loaded = ZoneJournal.open(settings.journalDir(), origin);
            } catch (IOException e) {
                throw new InvalidConfigException(DynamicConfig.JOURNAL_DIR,
                        "cannot use journal for zone " + origin + " in " + settings.journalDir() + ": " + e.getMessage(), e);
            }
            journals.put(origin, loaded.journal());
            zones.put(origin, loaded.zone());
            LOG.infof("dynamic zone %s: %d records, serial %d, from %s (%d transactions replayed%s)", origin,
                    loaded.zone().size(), loaded.zone().soa().getSerial(), loaded.journal().file(), loaded.transactions(),
                    loaded.damaged() ? ", " + loaded.skipped() + " damaged skipped, original kept as " + loaded.aside() : "");
        }
        writer = Executors.newSingleThreadExecutor(DaemonThreads.named("meshdns-dynamic-update"));
        this.sink = sink;
        publish();
    }

    void onStop(@Observes ShutdownEvent event) {
        if (writer != null) {
            writer.shutdown();
        }
        for (ZoneJournal journal : journals.values()) {
            try {
                journal.close();
            } catch (IOException e) {
                LOG.warnf("closing %s: %s", journal.file(), e.getMessage());
            }
        }
    }

    /** Read from the configuration on first use (the request path may ask before {@link #start} runs). */
    public synchronized DynamicSettings settings() {
        if (settings == null) {
            settings = DynamicSettings.from(config);
        }
        return settings;
    }

    /** The current version of a dynamic zone; null when {@code origin} is not one. */
    public ZoneData zone(Name origin) {
        return zones.get(origin);
    }

    /** Applies an UPDATE (TSIG and zone section already checked) and completes with its RCODE. */
    public CompletionStage<Integer> update(Name origin, Message update) {
        CompletableFuture<Integer> result = new CompletableFuture<>();
        writer.execute(() -> {
            try {
                result.complete(applyNow(origin, update));
            } catch (Exception e) {
                LOG.errorf(e, "UPDATE of zone %s failed; nothing applied", origin);
                result.complete(Rcode.SERVFAIL);
            }
        });
        return result;
    }

    private int applyNow(Name origin, Message update) throws IOException {
        ZoneData current = zones.get(origin);
        UpdateProcessor.Result result = UpdateProcessor.apply(current, update);
        if (result.rcode() != Rcode.NOERROR || !result.changed()) {
            return result.rcode();
        }
        ZoneJournal journal = journals.get(origin);
        journal.append(result.removed(), result.added());
        zones.put(origin, result.next());
        publish();
        if (journal.wantsCompaction(result.next())) {
            journal.compact(result.next());
        }
        LOG.debugf("zone %s: serial %d, -%d +%d records", origin, result.next().soa().getSerial(),
                result.removed().size(), result.added().size());
        return Rcode.NOERROR;
    }

    private void publish() {
        List<ZoneContent> content = new ArrayList<>();
        for (ZoneData zone : zones.values()) {
            content.add(zone.toContent());
        }
        Sink target = sink;
        if (target != null) target.publish(content, null);
    }
}
