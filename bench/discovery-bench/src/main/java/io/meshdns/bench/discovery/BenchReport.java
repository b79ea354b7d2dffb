package io.meshdns.bench.discovery;

import io.meshdns.bench.discovery.DiscoveryBench.EventKind;
import io.meshdns.bench.discovery.DiscoveryBench.Result;
import io.meshdns.bench.discovery.WatchRecorder.DeltaLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a discovery benchmark run leaves in its output folder: events.csv (one row per measured API event),
 * table.txt (latency, delta sizes, sync, memory and GC; also printed), deltas.csv (every delta line) and
 * results.kv (every figure by key, which bench/discovery records beside the machine and the commit).
 */
final class BenchReport {
    private BenchReport() {
    }

    /** Writes the four files; {@code kv} holds the run's figures so far and is given those of the events. */
    static void write(List<Result> results, Map<String, String> kv, Path out, int pollMicros) throws IOException {
        StringBuilder csv = new StringBuilder("seq,kind,service,call_ms,api_to_delta_ms,api_to_answer_ms,already_answered,delta_lines,delta_bytes,load\n");
        for (Result r : results) {
            csv.append(r.seq()).append(',').append(r.kind()).append(',').append(r.service()).append(',').append(f3(r.callMs())).append(',')
                    .append(f3(r.toDeltaMs())).append(',').append(f3(r.toAnswerMs())).append(',').append(r.alreadyAnswered()).append(',')
                    .append(r.lines().size()).append(',').append(r.lines().stream().mapToInt(DeltaLine::bytes).sum()).append(',')
                    .append(r.load().replace(' ', '/')).append('\n');
        }
        Files.writeString(out.resolve("events.csv"), csv);

        StringBuilder t = new StringBuilder();
        t.append(String.format("%nAPI event -> first correct answer at dns-service (ms from the API call returning; UDP poll every %d us)%n", pollMicros));
        t.append(String.format("%-44s %5s %9s %9s %9s %9s | %12s %12s%n", "event", "n", "p50", "p90", "p99", "max", "->delta p50", "->delta p99"));
        Map<String, List<Result>> groups = new LinkedHashMap<>();
        for (EventKind k : EventKind.values()) groups.put(k.label, results.stream().filter(r -> r.kind() == k).toList());
        groups.put("all", results);
        for (var g : groups.entrySet()) {
            double[] a = g.getValue().stream().filter(r -> r.toAnswerMs() >= 0).mapToDouble(Result::toAnswerMs).sorted().toArray();
            double[] d = g.getValue().stream().filter(r -> r.toDeltaMs() >= 0).mapToDouble(Result::toDeltaMs).sorted().toArray();
            t.append(String.format("%-44s %5d %9s %9s %9s %9s | %12s %12s%n", g.getKey(), a.length, f1(pct(a, 50)), f1(pct(a, 90)),
                    f1(pct(a, 99)), f1(a.length == 0 ? Double.NaN : a[a.length - 1]), f1(pct(d, 50)), f1(pct(d, 99))));
            if (g.getKey().equals("all")) {
                kv.put("latency_ms_p50", f1(pct(a, 50)));
                kv.put("latency_ms_p90", f1(pct(a, 90)));
                kv.put("latency_ms_p99", f1(pct(a, 99)));
                kv.put("latency_ms_max", f1(a.length == 0 ? Double.NaN : a[a.length - 1]));
                kv.put("api_to_delta_ms_p50", f1(pct(d, 50)));
                kv.put("api_to_delta_ms_p99", f1(pct(d, 99)));
                kv.put("events_measured", String.valueOf(g.getValue().size()));
                kv.put("events_unanswered", String.valueOf(g.getValue().size() - a.length));
                kv.put("events_already_answered", String.valueOf(g.getValue().stream().filter(Result::alreadyAnswered).count()));
            }
        }
        double[] calls = results.stream().mapToDouble(Result::callMs).sorted().toArray();
        kv.put("api_call_ms_p50", f1(pct(calls, 50)));
        t.append(String.format("(->delta: until the delta line reached a watch client, i.e. discovery's share incl. its 50 ms batch window; "
                + "API call itself p50 %s ms;%n dns-service's own apply+compile+publish timer: %s applies, mean %s ms)%n",
                f1(pct(calls, 50)), kv.get("dns_applies"), kv.get("dns_apply_ms_mean")));

        // Delta lines that carry exactly one changed service (every ref in the line belongs to the event's service).
        Map<String, List<DeltaLine>> byShape = new TreeMap<>();
        for (Result r : results) {
            for (DeltaLine d : r.lines()) {
                boolean own = d.refs().stream().allMatch(x -> x.name().equals(r.service()) || x.name().equals(r.service() + "-s1"));
                if (own) byShape.computeIfAbsent(d.shape(), k -> new ArrayList<>()).add(d);
            }
        }
        List<DeltaLine> all = byShape.values().stream().flatMap(List::stream).toList();
        t.append(String.format("%nBytes of a delta line carrying one changed service (one NDJSON line of /v1/watch, newline excluded)%n"));
        t.append(String.format("%-30s %5s | %8s %8s | %8s %8s | %8s %8s%n", "line carries", "n", "plain p50", "max", "gzip p50", "max", "stream p50", "max"));
        Map<String, List<DeltaLine>> rows = new LinkedHashMap<>(byShape);
        rows.put("all", all);
        for (var e : rows.entrySet()) {
            int[] p = e.getValue().stream().mapToInt(DeltaLine::bytes).sorted().toArray();
            int[] g = e.getValue().stream().mapToInt(DeltaLine::gzipBytes).sorted().toArray();
            int[] s = e.getValue().stream().mapToInt(DeltaLine::streamBytes).sorted().toArray();
            t.append(String.format("%-30s %5d | %8s %8s | %8s %8s | %8s %8s%n", e.getKey(), p.length, ipct(p, 50), ipct(p, 100),
                    ipct(g, 50), ipct(g, 100), ipct(s, 50), ipct(s, 100)));
            if (e.getKey().equals("all")) {
                kv.put("delta_bytes_p50", ipct(p, 50));
                kv.put("delta_bytes_max", ipct(p, 100));
                kv.put("delta_gzip_bytes_p50", ipct(g, 50));
                kv.put("delta_gzip_bytes_max", ipct(g, 100));
                kv.put("delta_stream_bytes_p50", ipct(s, 50));
            } else {
                // "+EndpointSlice +Service" -> upsert_EndpointSlice_upsert_Service, "-Service" -> delete_Service
                String key = e.getKey().replace("+", "upsert_").replace("-", "delete_").replace(' ', '_');
                kv.put("delta_bytes_p50_" + key, ipct(p, 50));
                kv.put("delta_gzip_bytes_p50_" + key, ipct(g, 50));
            }
        }
        t.append("(gzip: the line compressed alone; stream: what the line adds to one DEFLATE stream over the whole watch, flushed per line — the watch is not compressed today)\n");

        t.append(String.format("%nsnapshot (GET /v1/snapshot): %s bytes, gzip %s bytes%n", kv.get("snapshot_bytes"), kv.get("snapshot_gzip_bytes")));
        t.append(String.format("initial sync: discovery-service start -> ready %s s, -> catalog complete %s s (%s entries)  [load %s]%n",
                kv.get("discovery_ready_s"), kv.get("discovery_sync_s"), kv.get("discovery_entries"), kv.get("load_at_discovery_start")));
        t.append(String.format("              dns-service start -> whole catalog answering %s s  [load %s]   (loading the API took %s s)%n",
                kv.get("dns_sync_s"), kv.get("load_at_dns_start"), kv.get("load_s")));
        for (String when : List.of("after_sync", "after_events")) {
            t.append(String.format("discovery-service memory %-12s RSS %s MB after a full GC (%s before it, peak %s), heap used %s MB of %s committed; dns-service RSS %s MB, heap used %s MB  [load %s]%n",
                    when.replace('_', ' ') + ":", kv.get("discovery_rss_mb_" + when), kv.get("discovery_rss_mb_" + when + "_before_gc"),
                    kv.get("discovery_peak_rss_mb_" + when), kv.get("discovery_heap_used_mb_" + when), kv.get("discovery_heap_committed_mb_" + when),
                    kv.get("dns_rss_mb_" + when),
                    kv.get("dns_heap_used_mb_" + when), kv.get("load_at_memory_" + when)));
        }
        t.append(String.format("GC during the measured events (-Xlog:gc): discovery-service %s pauses, longest %s ms; dns-service %s pauses, longest %s ms%n",
                kv.get("discovery_gc_pauses_events"), kv.get("discovery_gc_pause_max_ms_events"), kv.get("dns_gc_pauses_events"), kv.get("dns_gc_pause_max_ms_events")));
        t.append(String.format("load average: events start %s, end %s%n", kv.get("load_at_events_start"), kv.get("load_at_events_end")));
        for (String svc : List.of("discovery", "dns")) {
            if (!"0".equals(kv.get(svc + "_event_loop_blocked_warnings"))) {
                t.append(String.format("WARNING: %s-service's Vert.x event loop was blocked (%s warnings, longest %s ms; see its log)%n",
                        svc, kv.get(svc + "_event_loop_blocked_warnings"), kv.get(svc + "_event_loop_blocked_max_ms")));
            }
        }
        if (!"0".equals(kv.get("events_already_answered")) || !"0".equals(kv.get("events_unanswered"))) {
            t.append(String.format("WARNING: %s events already answered before their API call, %s never answered%n",
                    kv.get("events_already_answered"), kv.get("events_unanswered")));
        }
        System.out.print(t);
        Files.writeString(out.resolve("table.txt"), t);

        StringBuilder deltas = new StringBuilder("to_version,bytes,gzip_bytes,stream_bytes,shape\n");
        for (Result r : results) {
            for (DeltaLine d : r.lines()) {
                deltas.append(d.toVersion()).append(',').append(d.bytes()).append(',').append(d.gzipBytes()).append(',')
                        .append(d.streamBytes()).append(',').append(d.shape()).append('\n');
            }
        }
        Files.writeString(out.resolve("deltas.csv"), deltas);
        StringBuilder k = new StringBuilder();
        kv.forEach((key, v) -> k.append(key).append('=').append(v).append('\n'));
        Files.writeString(out.resolve("results.kv"), k);
    }

    /** Nearest-rank percentile of a sorted array. */
    static double pct(double[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static String ipct(int[] sorted, double p) {
        if (sorted.length == 0) return "-";
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return String.valueOf(sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))]);
    }

    static String f1(double v) {
        return Double.isNaN(v) ? "-" : String.format("%.1f", v);
    }

    private static String f3(double v) {
        return String.format("%.3f", v);
    }
}
