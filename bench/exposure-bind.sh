#!/usr/bin/env bash
# exposure-service benchmark against a real BIND9 (started by the test on a loopback port):
#  - N records (default 10000) into an empty zone: time and number of UPDATE messages;
#  - one record change with N present: time until `dig` at BIND9 shows it.
# Usage: bench/exposure-bind.sh [records]
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-10000}"
mvn -B -q -pl exposure-service -am verify -Dtest=ExposureBench -Dsurefire.failIfNoSpecifiedTests=false \
  -Dmeshdns.bench=true -Dmeshdns.bench.records="$N" \
  -Dquarkus.log.level=WARN 2>&1 | grep BENCH || cat exposure-service/target/surefire-reports/*ExposureBench*.txt
