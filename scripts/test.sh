#!/usr/bin/env bash
# Every test: Package.swift checked against the imports, the whole suite (the store tests on SQLite and on a throwaway PostgreSQL; it must leave nothing in /tmp), the live page in headless Chromium
# (scripts/browser_test.py; Debian's chromium is installed when missing), the boundary fuzzer (scripts/fuzz_api.py) and
# schemathesis against the served OpenAPI document
# (scripts/schemathesis.sh; installed with pip when missing), then the concurrency tests again under ThreadSanitizer, the
# documentation checks, and each libFuzzer harness for 30 s (scripts/fuzz.sh).
# Installs GEOS and PROJ first if they are missing. Real-data tests read ../shared/data
# and skip, saying so, when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# A throwaway PostgreSQL server on loopback for the store tests (installed when missing),
# stopped when this script ends however it ends.
pgdir=$(mktemp -d /tmp/wayfare-pg.XXXXXX)
clusterdir=$(mktemp -d /tmp/wayfare-cluster.XXXXXX)
trap 'bash scripts/postgres.sh stop "$pgdir"; rm -rf "$pgdir"; bash scripts/pg-cluster.sh stop "$clusterdir"; rm -rf "$clusterdir"' EXIT
pgport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
WAYFARE_POSTGRES_URL=$(bash scripts/postgres.sh start "$pgdir" "$pgport" | tail -1)
# The server's self-signed certificate: the TLS tests verify the server against it.
WAYFARE_POSTGRES_CA="$pgdir/server.crt"
export WAYFARE_POSTGRES_URL WAYFARE_POSTGRES_CA
echo "== PostgreSQL for the store tests on 127.0.0.1:$pgport"
# A store that fails over for the failover test: PostgreSQL under Patroni with a synchronous
# standby, etcd and HAProxy (installed when missing), on 23 ports from a free base.
clusterbase=$(python3 - <<'PY'
import random, socket
for _ in range(200):
    base = random.randrange(20000, 60000)
    try:
        for port in [base, base + 1, base + 2, base + 11, base + 12, base + 21, base + 22]:
            s = socket.socket(); s.bind(("127.0.0.1", port)); s.close()
        print(base); break
    except OSError:
        continue
PY
)
WAYFARE_CLUSTER_URL=$(bash scripts/pg-cluster.sh start "$clusterdir" "$clusterbase" | tail -1)
WAYFARE_CLUSTER_DIR=$clusterdir
export WAYFARE_CLUSTER_URL WAYFARE_CLUSTER_DIR
echo "== A PostgreSQL cluster that fails over (Patroni, etcd, HAProxy) behind 127.0.0.1:$clusterbase"
echo "== Package.swift against the imports and the layer comment (both packages)"
python3 scripts/check-imports.py
echo "== Each service's SQL in its …Statements type, rows decoded into Decodable records"
python3 scripts/check-sql.py
echo "== No Swift file over 600 lines"
python3 scripts/check-sizes.py
swift build --build-tests
# The suite must leave nothing of its own in the temporary folder: what it lists before and
# after the tests (the names its fixtures use), compared.
tmp=${TMPDIR:-/tmp}
fixtures() { ls -d "$tmp"/wayfare-* "$tmp"/wf-* 2>/dev/null | sort || true; }
before=$(fixtures)
swift test --skip-build
left=$(comm -13 <(echo "$before") <(fixtures))
if [ -n "$left" ]; then
    echo "the tests left these behind in $tmp:" >&2
    echo "$left" >&2
    exit 1
fi
echo "== The live page in headless Chromium: load, click a trip, book it, see the cab move, save a screenshot"
if ! command -v chromium >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
rm -rf .build/browser-test
python3 scripts/browser_test.py .build/debug/wayfare .build/browser-test
echo "== The boundary fuzzer: every operation, field and role of the OpenAPI document with 2^63, 1e308, lone surrogates, nesting past the limit…; no 5xx, /health from the same process after each batch"
python3 scripts/fuzz_api.py .build/debug/wayfare .build/fuzz-api 180
echo "== schemathesis: the OpenAPI document against a live server, anonymous and as a passenger, 60 s each"
bash scripts/schemathesis.sh .build/debug/wayfare .build/schemathesis 60
echo "== ThreadSanitizer: concurrent zone lookups, GEOS/PROJ per-thread contexts, fleet readers and writers, routers sharing a graph, contraction on two threads, the dispatcher under load, concurrent payments and whole trips on both stores"
# The filter must keep matching: the step fails unless it ran exactly the expected tests.
expected_tsan_tests=11
log=.build/tsan.log
swift test --sanitize=thread --scratch-path .build-tsan \
    --filter "ConcurrencyTests|FleetConcurrencyTests|concurrentRoutersShareOneNetwork|ParallelContractionTests|DispatchConcurrencyTests|LedgerConcurrencyTests" 2>&1 | tee "$log"
if ! grep -q "Test run with $expected_tsan_tests tests" "$log"; then
    echo "ThreadSanitizer step: expected $expected_tsan_tests tests to run; see the log above" >&2
    exit 1
fi
echo "== Documentation: a doc comment on every public declaration; the DocC catalogs build without warnings"
python3 scripts/check-doc-comments.py
echo "== The README and docs/: every link resolves, and the module map is Package.swift's layers"
python3 scripts/check-links.py
python3 scripts/module-map.py --check
docc_targets=()
for m in BinaryFile Geodesy GeoJSON Projection Geometry CSVFile Zones ZoneImport SpatialIndex Fleet Favourites OSM RoadGraph Geocoding TaxiDispatch CitySimulation Fares Storage PostgresStorage Services ServiceSimulation CityFolder WayfareAPI WayfareServer Workloads Essentials CityModel SQLiteStorage; do
    docc_targets+=(--target "$m")
done
swift package generate-documentation "${docc_targets[@]}" --warnings-as-errors >/dev/null
echo "== libFuzzer: every loader for 30 s"
bash scripts/fuzz.sh 30
