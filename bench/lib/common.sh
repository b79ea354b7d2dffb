# Helpers shared by bench/run and bench/startup. Sourced, not executed.
# Everything here measures or manages processes this harness started itself, by PID.

CLK_TCK=$(getconf CLK_TCK)

# The machine is shared: other sessions build Java on both cores. The server and dnsperf run at a
# raised priority (-10 as root; BENCH_NICE=0 turns it off), each in a scheduling group of its own
# (see lib/prio), so the comparison is less at the mercy of whoever else runs; every server gets
# the same treatment.
if [ -z "${BENCH_NICE:-}" ]; then
  if [ "$(id -u)" -eq 0 ]; then BENCH_NICE=-10; else BENCH_NICE=0; fi
fi
export BENCH_NICE
BENCH_LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# on_core CORE: the command prefix that pins to CORE ("-": no pinning) at the bench priority, used
# unquoted: $(on_core 1) knotd ... & . Every step execs, so $! is the server's own PID (setsid does
# not fork: a non-interactive shell's children are not process-group leaders).
on_core() { echo "setsid $BENCH_LIB/prio $1"; }

log() { printf '[bench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

now_ns() { date +%s%N; }

# kv_get FILE KEY: the value of KEY in a key=value file.
kv_get() { awk -F= -v k="$2" '$1 == k { print $2 }' "$1" 2>/dev/null; }

# utime+stime of a process (all its threads), in clock ticks. Fields 14 and 15 of /proc/PID/stat;
# the command name (field 2) may contain spaces, so cut everything up to its closing parenthesis.
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# Busy ticks (everything but idle and iowait) of one CPU, or of a comma-separated list of them, from
# /proc/stat; with the server's own ticks this tells how much of the server's cores other processes
# took during a measurement.
core_busy_ticks() {
  awk -v list="$1" 'BEGIN { n = split(list, c, ","); for (i = 1; i <= n; i++) want["cpu" c[i]] = 1 }
    $1 in want { s += $2 + $3 + $4 + $7 + $8 + $9 } END { print s + 0 }' /proc/stat
}

rss_mb() { awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status" 2>/dev/null || echo "-"; }

# True when nothing listens on the UDP or TCP port on loopback.
port_free() { [ -z "$(ss -Hlnu "sport = :$1" 2>/dev/null)$(ss -Hlnt "sport = :$1" 2>/dev/null)" ]; }

# First free port at or above $1, stepping by 10 so a server's neighbour port stays free too.
pick_port() {
  local p=$1
  while ! port_free "$p" || ! port_free $((p + 1)); do p=$((p + 10)); done
  echo "$p"
}

# Polls with dig until the server answers the probe name with the expected address, for at most
# $4 seconds. Fails early when the process died.
wait_answer() {
  local port=$1 probe=$2 pid=$3 limit=${4:-60}
  local name type want deadline
  read -r name type want < "$probe"
  deadline=$(( $(date +%s) + limit ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    kill -0 "$pid" 2>/dev/null || return 2
    if dig @127.0.0.1 -p "$port" +time=1 +tries=1 +short "$name" "$type" 2>/dev/null | grep -qx "$want"; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

# Pins every thread of a process to one core. taskset at exec time is not enough: knotd sets the
# affinity of its UDP workers itself (worker i on online CPU i), which put its worker on dnsperf's
# core. Re-pinning after start overrides that; threads created later inherit the mask.
pin_threads() {
  local pid=$1 core=$2 t bad=""
  taskset -a -p -c "$core" "$pid" >/dev/null 2>&1 || true
  for t in /proc/"$pid"/task/*; do
    [ "$(taskset -p -c "${t##*/}" 2>/dev/null | sed 's/.*: //')" = "$core" ] || bad="$bad ${t##*/}"
  done
  [ -z "$bad" ] || log "warning: threads$bad of pid $pid are not pinned to core $core"
}

# Checks the three answer kinds the query mix contains, so no server is measured while answering
# something else: A on an existing name, AAAA on it (NOERROR, no answer), and a nonexistent name
# (NXDOMAIN). Prints what differs; returns non-zero when something does.
check_semantics() {
  local port=$1 probe=$2 name type want out bad=0
  read -r name type want < "$probe"
  out=$(dig @127.0.0.1 -p "$port" +time=2 +tries=2 "$name" A +noall +answer +comments 2>&1)
  grep -q 'status: NOERROR' <<<"$out" && grep -q "IN[[:space:]]A[[:space:]]$want" <<<"$out" \
    || { echo "A $name: expected NOERROR with $want"; bad=1; }
  out=$(dig @127.0.0.1 -p "$port" +time=2 +tries=2 "$name" AAAA +comments 2>&1)
  grep -q 'status: NOERROR' <<<"$out" && grep -q 'ANSWER: 0,' <<<"$out" \
    || { echo "AAAA $name: expected NOERROR/NODATA"; bad=1; }
  out=$(dig @127.0.0.1 -p "$port" +time=2 +tries=2 "nosuch-0.${name#*.}" A +comments 2>&1)
  grep -q 'status: NXDOMAIN' <<<"$out" || { echo "A nosuch-0.${name#*.}: expected NXDOMAIN"; bad=1; }
  return $bad
}

# True while the process exists and is not a zombie (servers started through bench/tools/
# StartupProbe are not this shell's children, so the shell cannot reap them).
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]; }

# SIGTERM, then SIGKILL after ${2:-10} s. Only ever called with PIDs this script started.
stop_pid() {
  local pid=$1 secs=${2:-10} i
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 $((secs * 10))); do
    alive "$pid" || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  log "pid $pid did not stop on SIGTERM within $secs s, sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# Extracts the numbers from dnsperf's statistics block as "key=value" lines.
dnsperf_stats() {
  awk '
    /Queries sent:/       { print "sent=" $3 }
    /Queries completed:/  { print "completed=" $3 }
    /Queries lost:/       { print "lost=" $3 }
    /Queries per second:/ { print "qps=" $4 }
    /Run time \(s\):/     { print "run_s=" $4 }
    /Response codes:/     { r = $0; sub(/.*Response codes: */, "", r); gsub(/ /, "_", r); print "rcodes=" r }
    /Average Latency/ {
      avg = $4; mx = $0; sub(/.*max /, "", mx); sub(/\).*/, "", mx)
      printf "avg_ms=%.3f\nmax_ms=%.3f\n", avg * 1000, mx * 1000
    }' "$1"
}

# p50/p99/p999 in ms from `dnsperf -v` per-query lines ("> RCODE name type seconds"), using a 1 us
# histogram so a million-line file needs no sort. Also the stalls: a stall is a run of answers
# slower than 5 ms with fewer than 200 faster ones in between (everything that was in flight or
# arrived while the server did not answer). dnsperf prints no timestamps, but the lines come in
# completion order at a fixed rate, so line index / rate is the time into the run (within the
# queue's own delay); with STALLS_FILE each stall gets a line "at_s=... max_ms=... queries=...",
# at_s counted from dnsperf's first query.
latency_percentiles() {
  awk -v stalls="${2:-}" -v rate="${3:-0}" '
    function close_stall() {
      if (sn > 0) {
        s5++; if (smax >= 10000) s10++
        if (stalls != "") printf("at_s=%.3f max_ms=%.3f queries=%d\n", (rate > 0 ? sfirst / rate : -1), smax / 1000, sn) > stalls
      }
      sn = 0; smax = 0
    }
    $1 == ">" && NF == 5 && $5 ~ /^[0-9.]+$/ {
      b = int($5 * 1000000 + 0.5); h[b]++; n++; if (b > mx) mx = b
      if (b >= 10000) o10++
      if (b >= 5000) {
        if (sn > 0 && n - slast > 200) close_stall()
        if (sn == 0) sfirst = n
        sn++; slast = n; if (b > smax) smax = b
      }
    }
    END {
      close_stall()
      if (n == 0) { print "p50_ms=-\np99_ms=-\np999_ms=-"; exit }
      t50 = n * 0.50; t99 = n * 0.99; t999 = n * 0.999; c = 0; p50 = p99 = p999 = -1
      for (b = 0; b <= mx; b++) {
        if (!(b in h)) continue
        c += h[b]
        if (p50 < 0 && c >= t50) p50 = b
        if (p99 < 0 && c >= t99) p99 = b
        if (p999 < 0 && c >= t999) { p999 = b; break }
      }
      printf "p50_ms=%.3f\np99_ms=%.3f\np999_ms=%.3f\nlatency_samples=%d\n", p50 / 1000, p99 / 1000, p999 / 1000, n
      printf "stalls_5ms=%d\nstalls_10ms=%d\nover_10ms=%d\n", s5, s10, o10
    }' "$1"
}

# GC pauses from a unified JVM log (-Xlog:gc...:uptime,...): count, total and max in ms, and the
# same restricted to an uptime window [from, to] in seconds when given.
gc_summary() {
  awk -v from="${2:--1}" -v to="${3:-1e18}" '
    /\[gc *\]/ && / Pause / && $NF ~ /ms$/ {
      ms = $NF; sub(/ms$/, "", ms); ms += 0; up = $0; sub(/^\[/, "", up); sub(/s\].*/, "", up)
      n++; tot += ms; if (ms > mx) mx = ms
      if (up + 0 >= from && up + 0 <= to) { wn++; wtot += ms; if (ms > wmx) wmx = ms }
    }
    END {
      printf "gc_pauses=%d\ngc_total_ms=%.1f\ngc_max_ms=%.2f\n", n, tot, mx
      if (from >= 0) printf "gc_window_pauses=%d\ngc_window_total_ms=%.1f\ngc_window_max_ms=%.2f\n", wn, wtot, wmx
    }' "$1"
}
