#!/usr/bin/env bash
# Prints the comparison table of one bench/run results directory.
#   bench/lib/report.sh RESULTS_DIR [server...]
# Ratios: peak QPS against the fastest peer (every server but meshdns), CPU share at the fixed rate
# against Knot (against Unbound in cache mode, where Knot is the upstream).
set -euo pipefail
res=$1; shift
if [ $# -eq 0 ]; then
  set -- $(ls "$res" | sed -n 's/-\(peak\|fixed\)\.kv$//p; s/\.\(skipped\|failed\)$//p' | sort -u)
fi

{
  cat "$res/env.txt"
  for s in "$@"; do
    if [ -f "$res/$s.skipped" ]; then echo "server=$s"; echo "status=skipped: $(sed 's/^skipped=//' "$res/$s.skipped")"; continue; fi
    if [ -f "$res/$s.failed" ]; then echo "server=$s"; echo "status=FAILED: $(sed 's/^failed=//' "$res/$s.failed")"; continue; fi
    echo "server=$s"; echo "status=ok"
    for k in peak fixed gc; do
      if [ -f "$res/$s-$k.kv" ]; then sed "s/^/$k./" "$res/$s-$k.kv"; fi
    done
  done
} | awk -F= '
  /^(mode|server_core)=/ { split($0, f, " "); for (i in f) { split(f[i], kv, "="); env[kv[1]] = kv[2] } next }
  /^server=/ { s = $2; order[++ns] = s; next }
  { key = $1; sub(/^[^=]*=/, ""); v[s, key] = $0 }
  function g(s, k) { return ((s, k) in v) ? v[s, k] : "-" }
  function f0(x) { return x == "-" ? "-" : sprintf("%.0f", x) }
  function f1(x) { return x == "-" ? "-" : sprintf("%.1f", x) }
  function f2(x) { return x == "-" ? "-" : sprintf("%.2f", x) }
  function f3(x) { return x == "-" ? "-" : sprintf("%.3f", x) }
  function ratio(a, b) { return (a == "-" || b == "-" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
  END {
    fast = ""; fastq = 0
    for (i = 1; i <= ns; i++) { s = order[i]
      if (s !~ /^meshdns/ && g(s, "peak.qps") != "-" && g(s, "peak.qps") + 0 > fastq) { fastq = g(s, "peak.qps") + 0; fast = s } }
    ref = ""
    for (i = 1; i <= ns; i++) if (order[i] == "knot" && g("knot", "fixed.cpu_pct") != "-") ref = "knot"
    if (ref == "") for (i = 1; i <= ns; i++) if (order[i] == "unbound" && g("unbound", "fixed.cpu_pct") != "-") ref = "unbound"
    printf "\nmode %s, %s records, %s s per run, fixed rate %s QPS, dnsperf -c %s -q %s; server on core %s, dnsperf on core %s%s\n",
      env["mode"], env["records"], env["duration"], env["rate"], env["clients"], env["outstanding"],
      ("server_core" in env ? env["server_core"] : 1), ("dnsperf_core" in env ? (env["dnsperf_core"] == "-" ? "any" : env["dnsperf_core"]) : 0),
      (env["udp_workers"] + 0 > 1 ? ", " env["udp_workers"] " UDP workers" : "")
    if (env["rounds"] + 0 > 1) printf "median of %s interleaved rounds\n", env["rounds"]
    printf "fastest peer (peak QPS): %s   CPU reference: %s\n\n", (fast == "" ? "-" : fast), (ref == "" ? "-" : ref)
    printf "%-8s | %9s %7s %6s %5s | %8s %7s %7s %7s %8s %7s %6s %6s %7s %8s %7s %6s %7s\n",
      "server", "peak QPS", "x" (fast == "" ? "fast" : fast), "lost", "cpu%",
      "QPS@rate", "avg ms", "p50 ms", "p99 ms", "p99.9 ms", "max ms", "lost", "cpu%", "x" (ref == "" ? "ref" : ref), "us/query", "x" (ref == "" ? "ref" : ref), "RSS MB", "others%"
    for (i = 1; i <= ns; i++) { s = order[i]
      if (g(s, "status") != "ok") { printf "%-8s | %s\n", s, g(s, "status"); continue }
      cpu = g(s, "fixed.cpu_pct"); comp = g(s, "fixed.completed")
      usq = g(s, "fixed.us_per_query")
      oth = g(s, "fixed.core_other_pct") != "-" ? g(s, "fixed.core_other_pct") : g(s, "peak.core_other_pct")
      if (g(s, "fixed.qps") != "-" && g(s, "fixed.qps") + 0 < 0.95 * env["rate"]) short = 1
      printf "%-8s | %9s %7s %6s %5s | %8s %7s %7s %7s %8s %7s %6s %6s %7s %8s %7s %6s %7s\n", s,
        f0(g(s, "peak.qps")), ratio(g(s, "peak.qps"), fastq), f0(g(s, "peak.lost")), f1(g(s, "peak.cpu_pct")),
        f0(g(s, "fixed.qps")) (g(s, "fixed.qps") != "-" && g(s, "fixed.qps") + 0 < 0.95 * env["rate"] ? "*" : ""), f3(g(s, "fixed.avg_ms")), f3(g(s, "fixed.p50_ms")), f3(g(s, "fixed.p99_ms")), f3(g(s, "fixed.p999_ms")), f3(g(s, "fixed.max_ms")),
        f0(g(s, "fixed.lost")), f1(cpu), ratio(cpu, g(ref, "fixed.cpu_pct")), f2(usq), ratio(usq, g(ref, "fixed.us_per_query")),
        f0(g(s, "fixed.rss_mb") != "-" ? g(s, "fixed.rss_mb") : g(s, "peak.rss_mb")), f1(oth)
      if (g(s, "fixed.upstream_cpu_s") != "-")
        printf "%-8s   upstream Knot CPU during the fixed-rate run: %s s (about 0 when the cache is warm)\n", "", g(s, "fixed.upstream_cpu_s")
      if (g(s, "gc.gc_pauses") != "-")
        printf "%-8s   GC: %s pauses, max %s ms, total %s ms over the whole run; during the fixed-rate run: %s pauses, max %s ms\n",
          "", g(s, "gc.gc_pauses"), g(s, "gc.gc_max_ms"), g(s, "gc.gc_total_ms"), g(s, "gc.gc_window_pauses"), g(s, "gc.gc_window_max_ms")
      if (g(s, "fixed.max_ms_rounds") != "-")
        printf "%-8s   per round at the fixed rate: max %s ms, p99.9 %s ms, stalls over 10 ms %s\n",
          "", g(s, "fixed.max_ms_rounds"), g(s, "fixed.p999_ms_rounds"), g(s, "fixed.stalls_10ms_rounds")
      if (g(s, "fixed.stalls_10ms") != "-")
        printf "%-8s   stalls (a run of consecutive answers slower than 5 ms) at the fixed rate: %s, %s of them over 10 ms, %s queries over 10 ms\n",
          "", g(s, "fixed.stalls_5ms"), g(s, "fixed.stalls_10ms"), g(s, "fixed.over_10ms")
    }
    if (short) printf "\n* the fixed rate was not reached (dnsperf or the server fell short): compare us/query, not cpu%%."
    printf "\nus/query = server CPU time per answered query at the fixed rate."
    printf "\ncpu%% = server utime+stime over the dnsperf run / wall time (100 = one full core); others%% = time other\n"
    printf "processes took on the server core in the same window (noise). Fixed-rate latencies come from dnsperf -v\n"
    printf "(one line per query); in a --rounds table every figure, max included, is the median over the rounds.\n"
  }'
