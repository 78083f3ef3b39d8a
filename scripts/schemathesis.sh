#!/usr/bin/env bash
# Schemathesis against a live `wayfare serve` with the OpenAPI document it serves: every
# operation is called with examples, boundary values and fuzzed input, anonymously and as a
# signed-in passenger, and each answer must be no 5xx, a documented status, the documented
# content type and a body matching the documented schema. Then SIGTERM, which must exit 0.
# Usage: scripts/schemathesis.sh WAYFARE_BINARY WORK_DIR [SECONDS]
set -euo pipefail
wayfare=$1 work=$2 seconds=${3:-60}
cd "$(dirname "$0")/.."
. scripts/lib/wait.sh
command -v schemathesis >/dev/null 2>&1 || python3 -m pip install --quiet 'schemathesis>=4.3,<5'
rm -rf "$work" && mkdir -p "$work"
"$wayfare" city build --osm Data/monaco/monaco.osm.pbf --zones Data/monaco/wards.geojson \
    --service-area Data/monaco/communes.geojson --fares Data/monaco/fares.json --tolls Data/monaco/tolls.json \
    --name Monaco --out "$work/city" >/dev/null 2>"$work/build.log"
"$wayfare" serve --payments test --sms test --city "$work/city" --store "sqlite:$work/store.sqlite" --port 0 --rate-limit 0 --log-level warning \
    2>"$work/server.log" &
server=$!
trap 'kill -9 $server 2>/dev/null || true' EXIT
base=$(served_url "$work/server.log" 20) || { echo "schemathesis: the server did not start" >&2; cat "$work/server.log" >&2; exit 1; }
token=$(python3 - "$base" <<'PY'
import json, sys, urllib.request
base = sys.argv[1]
def call(path, body):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request))
sent = call("/v1/accounts", {"name": "Fuzz", "mobile": "9123456780", "email": "fuzz@example.com",
                             "password": "fuzzing rides 2026", "confirmation": "fuzzing rides 2026"})
call("/v1/accounts/verify", {"mobile": "9123456780", "code": sent["test_code"]})  # the server runs test SMS
print(call("/v1/sessions", {"mobile": "9123456780", "password": "fuzzing rides 2026"})["token"])
PY
)
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
# One run (through scripts/schemathesis_run.py, which keeps a CPython 3.11 bug in
# Hypothesis's lambda descriptions from ending it); a run whose only trouble is another
# error inside schemathesis itself (a "Runtime Error" with no failure of the API) is run
# once more. A failure of the API is never retried.
fuzz() {
    local log
    log="$work/schemathesis.log"
    for attempt in 1 2; do
        if python3 scripts/schemathesis_run.py run "$base/openapi.json" --checks "$checks" --phases examples,coverage,fuzzing --max-time "$seconds" -w 2 \
            --warnings off "$@" 2>&1 | tee "$log"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
            return 0
        fi
        if grep -q "= FAILURES =" "$log" || ! grep -q "Runtime Error" "$log" || [ "$attempt" -eq 2 ]; then return 1; fi
        echo "schemathesis: an error inside schemathesis, not a failure of the API; once more"
    done
}
echo "== schemathesis: anonymous"
fuzz --seed 1
echo "== schemathesis: as a passenger"
fuzz --seed 2 -H "Authorization: Bearer $token"
kill -TERM $server
wait $server
echo "schemathesis: the server stopped cleanly"
