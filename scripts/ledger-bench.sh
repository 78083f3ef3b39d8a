#!/usr/bin/env bash
# The money path on PostgreSQL beside pgbench's TPC-B, on one scratch server in one run.
#
# TPC-B moves money much as a trip does (three balance updates, a read and a history row per
# transaction), so it is the ceiling the ledger is measured against: the same server, the same
# machine, the same minute. Prints one Markdown table:
#   pgbench TPC-B (scale S)        with 1 and 8 clients: transactions/s, mean latency
#   wayfare bench bookings          with 1 and 8 workers: whole trips/s (book, allocate, arrive,
#                                   start, complete, pay), trip p50 and p99
# and writes the raw outputs to OUT_DIR. With BASELINE=PATH (a `wayfare` binary of an earlier
# release), that binary's trips follow, on the same server in the same run.
#
# Usage: [BASELINE=BINARY] scripts/ledger-bench.sh [WAYFARE_BINARY] [OUT_DIR] [BOOKINGS] [PGBENCH_SECONDS] [SCALE]
set -euo pipefail
cd "$(dirname "$0")/.."
wayfare=${1:-.build/release/wayfare} out=${2:-.build/ledger-bench} bookings=${3:-1000} seconds=${4:-20} scale=${5:-10}
[ -x "$wayfare" ] || { echo "ledger-bench: $wayfare: no such binary (swift build -c release --product wayfare)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
server=$(mktemp -d /tmp/wayfare-ledger-bench.XXXXXX)
chmod 755 "$server"
url=$(bash scripts/postgres.sh start "$server" | tail -1)
trap 'bash scripts/postgres.sh stop "$server" >/dev/null 2>&1 || true; rm -rf "$server"' EXIT
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
port=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).port)' "$url")

# The scratch server's test password, in the environment only (never on a command line).
export PGPASSWORD=wayfare-test-password WAYFARE_STORE_PASSWORD=wayfare-test-password
"$bin/createdb" -h 127.0.0.1 -p "$port" -U wayfare tpcb
"$bin/pgbench" -h 127.0.0.1 -p "$port" -U wayfare -i -q -s "$scale" tpcb >"$out/pgbench-init.log" 2>&1

rows=()
for clients in 1 8; do
    "$bin/pgbench" -h 127.0.0.1 -p "$port" -U wayfare -n -c "$clients" -j "$clients" -T "$seconds" tpcb >"$out/pgbench-$clients.log" 2>&1
    tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$out/pgbench-$clients.log" | head -1)
    mean=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' "$out/pgbench-$clients.log" | head -1)
    rows+=("| pgbench TPC-B, scale $scale | $clients | $(printf '%.0f' "$tps") transactions | $mean ms (mean) | |")
done
store=${url/:wayfare-test-password@/@}
trips() {  # BINARY LABEL TAG
    for workers in 1 8; do
        "$1" bench bookings --bookings "$bookings" --concurrency "$workers" --store "$store" >"$out/bookings-$3$workers.json"
        rows+=("$(python3 - "$out/bookings-$3$workers.json" "$workers" "$2" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
assert d["ledger_sound"], "the ledger does not balance"
print("| %s | %s | %.0f trips | %.1f ms (p50) | %.1f ms |"
      % (sys.argv[3], sys.argv[2], d["bookings_per_second"], d["trip_p50_ms"], d["trip_p99_ms"]))
PY
)")
    done
}
trips "$wayfare" "Wayfare bookings end to end" ""
if [[ -n "${BASELINE:-}" ]]; then
    [ -x "$BASELINE" ] || { echo "ledger-bench: BASELINE=$BASELINE: no such binary" >&2; exit 1; }
    trips "$BASELINE" "previous release, same server" "baseline-"
fi

echo "| run | clients | per second | latency | p99 |"
echo "| --- | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
