#!/usr/bin/env bash
# Alternative routes against OSRM, in one run: pairs of junctions on Monaco's graph, up to
# three routes each from Wayfare (in process, on core 0), from Wayfare's server
# (`GET /v1/route?…&alternatives=3`) and from OSRM's /route with alternatives=3 (osrm-routed
# from the osrm-bindings wheel), once on its contraction hierarchy and once on its multi-level
# Dijkstra. Each server runs alone on core 1 with its client on core 0, one keep-alive
# connection, the median of three calls per pair after a warming pass. Every engine's routes
# are measured the same way (stretch, sharing with the fastest by brute force, the common
# admissibility bounds). Prints one JSON line per engine; writes OUT/alternatives.jsonl.
# Usage: scripts/alternatives-bench.sh [WAYFARE_BINARY] [OUT_DIR] [PAIRS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/wait.sh
wayfare=${1:-.build/release/wayfare} out=${2:-.build/alternatives-bench} pairs=${3:-500}
[ -x "$wayfare" ] || { echo "alternatives-bench: $wayfare: no such binary (swift build -c release --product wayfare)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
pin0="" pin1=""
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then pin0="taskset -c 0"; pin1="taskset -c 1"; fi
"$wayfare" city build --osm Data/monaco/monaco.osm.pbf --zones Data/monaco/wards.geojson \
    --service-area Data/monaco/communes.geojson --fares Data/monaco/fares.json --tolls Data/monaco/tolls.json \
    --name Monaco --out "$out/city" >/dev/null 2>"$out/build.log"
data=$(bash scripts/osrm.sh "$out/osrm")
$pin0 "$wayfare" bench alternatives "$out/city/roads.wfg" --pairs "$pairs" --pairs-out "$out/pairs.jsonl" | tee "$out/alternatives.jsonl"
server=""
trap 'kill $server 2>/dev/null || true' EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

for engine in wayfare-http osrm-ch osrm-mld; do
    port=$(free_port)
    case $engine in
        wayfare-http)
            $pin1 "$wayfare" serve --payments test --sms test --city "$out/city" --store "sqlite:$out/store.sqlite" --port "$port" \
                --rate-limit 0 --log-level warning 2>"$out/server.log" &
            kind=wayfare ;;
        osrm-ch) $pin1 "$out/osrm/wheel/osrm/bin/osrm-routed" --algorithm ch --ip 127.0.0.1 --port "$port" "$data" >"$out/osrm/routed-ch.log" 2>&1 &
            kind=osrm ;;
        osrm-mld) $pin1 "$out/osrm/wheel/osrm/bin/osrm-routed" --algorithm mld --ip 127.0.0.1 --port "$port" "$out/osrm/mld/monaco.osrm" \
                >"$out/osrm/routed-mld.log" 2>&1 &
            kind=osrm ;;
    esac
    server=$!
    wait_for_port "$port" 30 || true  # a dead server shows in the requests below
    $pin0 python3 - "$out/pairs.jsonl" "$out/$engine.jsonl" "$port" "$kind" <<'PY'
import http.client, json, sys, time
pairs, answers, port, kind = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
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
    raise SystemExit("the server does not answer")
lines = [json.loads(l) for l in open(pairs)]
if kind == "osrm":
    paths = ["/route/v1/driving/%.7f,%.7f;%.7f,%.7f?alternatives=3&overview=full&geometries=geojson"
             % (p["from"][1], p["from"][0], p["to"][1], p["to"][0]) for p in lines]
else:
    paths = ["/v1/route?from=%.7f,%.7f&to=%.7f,%.7f&alternatives=3" % (p["from"][0], p["from"][1], p["to"][0], p["to"][1]) for p in lines]
for path in paths: get(path)
with open(answers, "w") as out:
    for p, path in zip(lines, paths):
        times = []
        for _ in range(3):
            body, seconds = get(path)
            times.append(seconds)
        answer = json.loads(body)
        if kind == "osrm":
            routes = [{"duration_s": r["duration"], "geometry": r["geometry"]["coordinates"]} for r in answer.get("routes", [])] \
                if answer.get("code") == "Ok" else []
        else:
            routes = [{"duration_s": r["duration_s"], "geometry": r["geometry"]["coordinates"]} for r in answer.get("routes", [])]
        out.write(json.dumps({"id": p["id"], "routes": routes, "seconds": sorted(times)[1]}) + "\n")
PY
    kill $server 2>/dev/null || true
    wait $server 2>/dev/null || true
    $pin0 "$wayfare" bench alternatives "$out/city/roads.wfg" --pairs "$pairs" --peer "$out/$engine.jsonl" --peer-name "$engine" \
        | tail -n 1 | tee -a "$out/alternatives.jsonl"
done
