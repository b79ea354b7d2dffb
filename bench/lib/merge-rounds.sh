#!/usr/bin/env bash
# Merges the rounds of one bench/run results directory: for every server and measurement
# (peak, fixed, gc) each numeric figure becomes the median over the rounds that produced it.
#   bench/lib/merge-rounds.sh RESULTS_DIR ROUNDS server...
set -euo pipefail
res=$1; rounds=$2; shift 2
for s in "$@"; do
  rm -f "$res/$s.skipped" "$res/$s.failed"
  if [ -f "$res/round1/$s.skipped" ]; then cp "$res/round1/$s.skipped" "$res/"; continue; fi
  for kind in peak fixed gc; do
    files=()
    for r in $(seq 1 "$rounds"); do [ -f "$res/round$r/$s-$kind.kv" ] && files+=("$res/round$r/$s-$kind.kv"); done
    [ ${#files[@]} -gt 0 ] || continue
    awk -F= '
      { k = $1; v = substr($0, length(k) + 2)
        if (!(k in first)) { first[k] = v; keys[++nk] = k }
        if (v ~ /^-?[0-9]+(\.[0-9]+)?$/) vals[k] = vals[k] " " v }
      END {
        for (i = 1; i <= nk; i++) { k = keys[i]
          if (!(k in vals)) { print k "=" first[k]; continue }
          n = split(substr(vals[k], 2), a, " ")
          # The tail target holds in every round, so the table also shows the figure of every round.
          if (k == "max_ms" || k == "p999_ms" || k == "stalls_10ms") { r = a[1]; for (x = 2; x <= n; x++) r = r "/" a[x]; print k "_rounds=" r }
          for (x = 2; x <= n; x++) { t = a[x]; y = x - 1; while (y >= 1 && a[y] + 0 > t + 0) { a[y + 1] = a[y]; y-- } a[y + 1] = t }
          print k "=" (n % 2 ? a[(n + 1) / 2] : sprintf("%.3f", (a[n / 2] + a[n / 2 + 1]) / 2))
        }
        print "rounds=" FILENAME_COUNT
      }' FILENAME_COUNT=${#files[@]} "${files[@]}" > "$res/$s-$kind.kv"
  done
  if [ ! -f "$res/$s-peak.kv" ] && [ ! -f "$res/$s-fixed.kv" ] && [ -f "$res/round1/$s.failed" ]; then
    cp "$res/round1/$s.failed" "$res/"
  fi
done
