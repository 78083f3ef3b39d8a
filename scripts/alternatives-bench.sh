#!/usr/bin/env bash
# Alternative routes against OSRM, in one run: pairs of junctions on Monaco's graph, up to
# three routes each from Wayfare (in process, on core 0) and from OSRM's /route with
# alternatives=3 (osrm-routed from the osrm-bindings wheel, on core 1, its client on core 0),
# once on its contraction hierarchy and once on its multi-level Dijkstra. Every engine's
# routes are measured the same way (stretch, sharing with the fastest by brute force, the
# common admissibility bounds). Prints one JSON line per engine; writes OUT/alternatives.jsonl.
# OSRM's time is measured at its client, so it includes HTTP and JSON; ours is in process.
# Usage: scripts/alternatives-bench.sh [WAYFARE_BINARY] [OUT_DIR] [PAIRS]
set -euo pipefail
cd "$(dirname "$0")/.."
wayfare=${1:-.build/release/wayfare} out=${2:-.build/alternatives-bench} pairs=${3:-500}
[ -x "$wayfare" ] || { echo "alternatives-bench: $wayfare: no such binary (swift build -c release --product wayfare)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
pin0="" pin1=""
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then pin0="taskset -c 0"; pin1="taskset -c 1"; fi
"$wayfare" graph import Data/monaco/monaco.osm.pbf --out "$out/monaco.wfg" >/dev/null 2>&1
data=$(bash scripts/osrm.sh "$out/osrm")
$pin0 "$wayfare" bench alternatives "$out/monaco.wfg" --pairs "$pairs" --pairs-out "$out/pairs.jsonl" >/dev/null
: >"$out/alternatives.jsonl"
for algorithm in ch mld; do
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    $pin1 "$out/osrm/wheel/osrm/bin/osrm-routed" --algorithm "$algorithm" --ip 127.0.0.1 --port "$port" "$data" \
        >"$out/osrm/routed-$algorithm.log" 2>&1 &
    osrm=$!
    trap 'kill $osrm 2>/dev/null || true' EXIT
    for _ in $(seq 1 100); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && break
        sleep 0.2
    done
    # OSRM's answers, one request per pair on one keep-alive connection, timed at the client
    # (the median of three, after a first pass that warms it).
    $pin0 python3 - "$out/pairs.jsonl" "$out/osrm-$algorithm.jsonl" "$port" <<'PY'
import http.client, json, sys, time
pairs, answers, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = http.client.HTTPConnection("127.0.0.1", port)
def get(path):
    global conn
    for attempt in range(2):
        try:
            start = time.perf_counter()
            conn.request("GET", path)
            body = conn.getresponse().read()
            return body, time.perf_counter() - start
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # osrm-routed ends a keep-alive connection after 512 requests: open another.
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port)
    raise SystemExit("osrm-routed does not answer")
lines = [json.loads(l) for l in open(pairs)]
paths = ["/route/v1/driving/%.7f,%.7f;%.7f,%.7f?alternatives=3&overview=full&geometries=geojson"
         % (p["from"][1], p["from"][0], p["to"][1], p["to"][0]) for p in lines]
for path in paths: get(path)
with open(answers, "w") as out:
    for p, path in zip(lines, paths):
        times = []
        for _ in range(3):
            body, seconds = get(path)
            times.append(seconds)
        answer = json.loads(body)
        routes = [{"duration_s": r["duration"], "geometry": r["geometry"]["coordinates"]} for r in answer.get("routes", [])] \
            if answer.get("code") == "Ok" else []
        out.write(json.dumps({"id": p["id"], "routes": routes, "seconds": sorted(times)[1]}) + "\n")
PY
    kill $osrm 2>/dev/null || true
    wait $osrm 2>/dev/null || true
    $pin0 "$wayfare" bench alternatives "$out/monaco.wfg" --pairs "$pairs" --peer "$out/osrm-$algorithm.jsonl" --peer-name "osrm-$algorithm" \
        | { if [ "$algorithm" = ch ]; then cat; else tail -n 1; fi; } | tee -a "$out/alternatives.jsonl"
done
