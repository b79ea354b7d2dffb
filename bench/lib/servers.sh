# Server definitions for bench/run. Sourced, not executed.
#
# Each server NAME has:
#   srv_NAME_missing MODE   prints why it cannot run (and returns 0), or returns 1 when it can
#   srv_NAME_start MODE PORT DIR DATA UPSTREAM
#                           writes its config into DIR, starts it in the background on
#                           127.0.0.1:PORT pinned to $SERVER_CORE, and sets SERVER_PID
# MODE is "auth" (serve the generated zone) or "cache" (forward to the Knot upstream on 127.0.0.1:
# UPSTREAM and answer from a warm cache). Every server gets one worker thread where it has the
# setting, so all of them compete on the same single core; bench/run --cores 2 sets BENCH_UDP_WORKERS=2
# for meshdns (meshdns.dns.udp-workers) and Knot (udp-workers).

SERVER_CORE=${SERVER_CORE:-1}
REPO_ROOT=${REPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
MESHDNS_JAR=${MESHDNS_JAR:-$REPO_ROOT/dns-service/target/quarkus-app/quarkus-run.jar}
MESHDNS_JAVA=${MESHDNS_JAVA:-java}
# The DaemonSet's flags (k8s/base/dns-service.yaml), so the bench measures what a node runs: the serial
# collector with an 8 MB young generation, and the heap the manifest's MaxRAMPercentage=50 gives under
# its 256Mi limit (128 MB; the bench has no container limit to take a percentage of).
MESHDNS_JAVA_OPTS=${MESHDNS_JAVA_OPTS:--XX:+UseSerialGC -Xmn8m -Xmx128m -XX:+ExitOnOutOfMemoryError -Xss256k -XX:ReservedCodeCacheSize=24m -XX:MaxMetaspaceSize=64m -XX:TrimNativeHeapInterval=5000 -XX:-UsePerfData}

have_cmd() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }

# ---------------------------------------------------------------- meshdns
srv_meshdns_missing() {
  if [ ! -f "$MESHDNS_JAR" ]; then
    echo "no $MESHDNS_JAR; build it with: mvn -B -q -pl dns-service -am package -DskipTests"
    return 0
  fi
  have_cmd "$MESHDNS_JAVA" || { echo "no java ($MESHDNS_JAVA)"; return 0; }
  return 1
}
srv_meshdns_start() {
  local mode=$1 port=$2 dir=$3 data=$4 up=$5
  local -a props=(-Dmeshdns.dns.port="$port" -Dmeshdns.dns.bind-address=127.0.0.1
                  -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port=0)
  # Only when asked for: a jar from before the key existed (MESHDNS_JAR, for before/after runs) refuses unknown keys.
  if [ "${BENCH_UDP_WORKERS:-1}" != 1 ]; then props+=(-Dmeshdns.dns.udp-workers="$BENCH_UDP_WORKERS"); fi
  # MESHDNS_EXTRA_PROPS: more -D keys, space-separated (bench/profile --mode forward turns the cache off).
  # shellcheck disable=SC2206 # a list of flags
  if [ -n "${MESHDNS_EXTRA_PROPS:-}" ]; then props+=($MESHDNS_EXTRA_PROPS); fi
  if [ "$mode" = auth ]; then
    # No query leaves the zone; the upstream is a dead loopback port so nothing is ever sent out.
    props+=(-Dmeshdns.dns.zone-files="$data/bench.mesh.zone" -Dmeshdns.dns.upstreams=127.0.0.1:"$up")
  else
    # The query file asks for about 28k distinct (name, type) pairs at 10k services ($records is
    # bench/run's zone size); the default bound (10000 entries) would thrash. The peers get caches
    # of this size too.
    props+=(-Dmeshdns.dns.upstreams=127.0.0.1:"$up" -Dmeshdns.dns.cache.max-entries=$((records * 10 > 100000 ? records * 10 : 100000)))
  fi
  local gc=()
  case "$MESHDNS_JAVA_OPTS" in *-Xlog:gc*) ;; *) gc=(-Xlog:gc*:file="$dir/gc.log":uptime,level,tags) ;; esac
  # MESHDNS_JFR=1 records a flight recording of the whole run (bench/run copies it to the results).
  if [ "${MESHDNS_JFR:-0}" = 1 ]; then gc+=(-XX:StartFlightRecording=filename="$dir/meshdns.jfr",settings=profile,dumponexit=true); fi
  # shellcheck disable=SC2086 # MESHDNS_JAVA_OPTS is a list of flags
  echo "$MESHDNS_JAVA $MESHDNS_JAVA_OPTS ${gc[*]} ${props[*]} -jar $MESHDNS_JAR" > "$dir/cmdline"
  # shellcheck disable=SC2086
  # As the DaemonSet sets it: fewer glibc malloc arenas.
  MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} $(on_core "$SERVER_CORE") "$MESHDNS_JAVA" $MESHDNS_JAVA_OPTS "${gc[@]}" "${props[@]}" \
    -jar "$MESHDNS_JAR" > "$dir/server.log" 2>&1 &
  SERVER_PID=$!
  SERVER_START_NS=$(now_ns)
}

# ---------------------------------------------------------------- Knot
srv_knot_missing() {
  have_cmd knotd || { echo "knotd not installed (apt-get install knot)"; return 0; }
  [ "$1" = auth ] || { echo "Knot is authoritative only; it is the upstream in cache mode"; return 0; }
  return 1
}
# Also used for the upstream in cache mode (with a different core and directory).
knot_start() {
  local core=$1 port=$2 dir=$3 zone=$4
  cat > "$dir/knot.conf" <<EOF
server:
    listen: 127.0.0.1@$port
    rundir: "$dir"
    udp-workers: ${BENCH_UDP_WORKERS:-1}
    tcp-workers: 1
    background-workers: 1
database:
    storage: "$dir"
log:
  - target: stderr
    any: warning
template:
  - id: default
    storage: "$dir"
    journal-content: none
    zonefile-sync: -1
    semantic-checks: off
zone:
  - domain: bench.mesh.
    file: "$zone"
EOF
  echo "knotd -c $dir/knot.conf" > "$dir/cmdline"
  $(on_core "$core") knotd -c "$dir/knot.conf" > "$dir/server.log" 2>&1 &
  SERVER_PID=$!
}
srv_knot_start() { knot_start "$SERVER_CORE" "$2" "$3" "$4/bench.mesh.zone"; }

# ---------------------------------------------------------------- BIND9
srv_bind9_missing() { have_cmd named || { echo "named not installed (apt-get install bind9)"; return 0; }; return 1; }
srv_bind9_start() {
  local mode=$1 port=$2 dir=$3 data=$4 up=$5
  local body
  if [ "$mode" = auth ]; then
    body="    recursion no;
};
zone \"bench.mesh.\" { type primary; file \"$data/bench.mesh.zone\"; notify no; };"
  else
    body="    recursion yes;
    allow-recursion { 127.0.0.0/8; };
    forward only;
    forwarders { 127.0.0.1 port $up; };
    max-cache-size 256m;
};"
  fi
  cat > "$dir/named.conf" <<EOF
options {
    directory "$dir";
    pid-file "$dir/named.pid";
    session-keyfile "$dir/session.key";
    managed-keys-directory "$dir";
    listen-on port $port { 127.0.0.1; };
    listen-on-v6 { none; };
    allow-query { any; };
    dnssec-validation no;
    minimal-responses yes;
    querylog no;
$body
controls { };
logging { category default { default_stderr; }; category lame-servers { null; }; };
EOF
  echo "named -g -n 1 -c $dir/named.conf" > "$dir/cmdline"
  $(on_core "$SERVER_CORE") named -g -n 1 -c "$dir/named.conf" > "$dir/server.log" 2>&1 &
  SERVER_PID=$!
}

# ---------------------------------------------------------------- Unbound
srv_unbound_missing() { have_cmd unbound || { echo "unbound not installed (apt-get install unbound)"; return 0; }; return 1; }
srv_unbound_start() {
  local mode=$1 port=$2 dir=$3 data=$4 up=$5
  local body
  if [ "$mode" = auth ]; then
    body="    include: \"$data/unbound-local.conf\""
  else
    # Caches big enough for the whole query file, so a warm run never goes upstream.
    body="    msg-cache-size: 128m
    rrset-cache-size: 256m
    qname-minimisation: no
forward-zone:
    name: \".\"
    forward-addr: 127.0.0.1@$up"
  fi
  cat > "$dir/unbound.conf" <<EOF
server:
    interface: 127.0.0.1@$port
    do-ip6: no
    do-daemonize: no
    username: ""
    chroot: ""
    directory: "$dir"
    pidfile: "$dir/unbound.pid"
    use-syslog: no
    logfile: ""
    verbosity: 0
    num-threads: 1
    access-control: 127.0.0.0/8 allow
    module-config: "iterator"
    do-not-query-localhost: no
$body
remote-control:
    control-enable: no
EOF
  echo "unbound -d -c $dir/unbound.conf" > "$dir/cmdline"
  $(on_core "$SERVER_CORE") unbound -d -c "$dir/unbound.conf" > "$dir/server.log" 2>&1 &
  SERVER_PID=$!
}

# ---------------------------------------------------------------- dnsmasq
srv_dnsmasq_missing() { have_cmd dnsmasq || { echo "dnsmasq not installed (apt-get install dnsmasq-base)"; return 0; }; return 1; }
srv_dnsmasq_start() {
  local mode=$1 port=$2 dir=$3 data=$4 up=$5
  local -a args=(-k --conf-file=/dev/null --port="$port" --listen-address=127.0.0.1 --bind-interfaces
                 --no-resolv --no-hosts --user=root --pid-file="$dir/dnsmasq.pid")
  if [ "$mode" = auth ]; then
    # --local makes names under bench.mesh. that are not in the hosts file NXDOMAIN instead of
    # being forwarded (there is no upstream anyway).
    args+=(--addn-hosts="$data/dnsmasq.hosts" --local=/bench.mesh/)
  else
    args+=(--server="127.0.0.1#$up" --cache-size=100000)
  fi
  echo "dnsmasq ${args[*]}" > "$dir/cmdline"
  $(on_core "$SERVER_CORE") dnsmasq "${args[@]}" > "$dir/server.log" 2>&1 &
  SERVER_PID=$!
}
