#!/usr/bin/env bash
# Map matching against the truth and against OSRM, in one run: trips simulated on Monaco's
# graph, their traces at GPS noise σ 5, 15 and 30 m and one report every 1, 5, 15 and 30 s,
# matched by Wayfare (in process, on core 0) and by OSRM's /match (osrm-routed from the
# osrm-bindings wheel, on core 1, its client on core 0), both scored with the same mismatch
# fraction (Newson and Krumm) and billed distance's error. Prints one JSON line per setting
# with OSRM's figures beside ours, then the time to match a 30-minute trace; writes OUT/match.jsonl.
# Usage: scripts/match-bench.sh [WAYFARE_BINARY] [OUT_DIR] [TRIPS]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/wait.sh
wayfare=${1:-.build/release/wayfare} out=${2:-.build/match-bench} trips=${3:-100}
[ -x "$wayfare" ] || { echo "match-bench: $wayfare: no such binary (swift build -c release --product wayfare)" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out"
pin0="" pin1=""
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then pin0="taskset -c 0"; pin1="taskset -c 1"; fi
"$wayfare" graph import Data/monaco/monaco.osm.pbf --out "$out/monaco.wfg" >/dev/null 2>&1
data=$(bash scripts/osrm.sh "$out/osrm")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
$pin1 "$out/osrm/wheel/osrm/bin/osrm-routed" --algorithm ch --ip 127.0.0.1 --port "$port" --max-matching-size 100000 \
    "$data" >"$out/osrm/routed.log" 2>&1 &
osrm=$!
trap 'kill $osrm 2>/dev/null || true' EXIT
wait_for_port "$port" 20 || true  # a dead osrm-routed shows in the requests below
# The traces (and our first pass, discarded).
$pin0 "$wayfare" bench match "$out/monaco.wfg" --trips "$trips" --traces-out "$out/traces.jsonl" >/dev/null
# OSRM's answers, one request per trace on one keep-alive connection, timed at the client.
$pin0 python3 - "$out/traces.jsonl" "$out/osrm.jsonl" "$port" <<'PY'
import http.client, json, sys, time
traces, answers, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = http.client.HTTPConnection("127.0.0.1", port)
with open(traces) as f, open(answers, "w") as out:
    for line in f:
        t = json.loads(line)
        points = t["points"]
        coords = ";".join("%.7f,%.7f" % (p[1], p[0]) for p in points)
        # OSRM wants whole, increasing seconds; its radius is the σ of its Gaussian.
        stamps, last = [], -1
        for p in points:
            s = max(last + 1, int(round(p[2])))
            stamps.append(str(s)); last = s
        radius = max(1.0, t["sigma_m"])
        path = ("/match/v1/driving/%s?timestamps=%s&radiuses=%s&overview=full&geometries=geojson&gaps=split&tidy=false"
                % (coords, ";".join(stamps), ";".join(["%.1f" % radius] * len(points))))
        for attempt in range(2):
            try:
                start = time.perf_counter()
                conn.request("GET", path)
                body = conn.getresponse().read()
                seconds = time.perf_counter() - start
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # osrm-routed ends a keep-alive connection after 512 requests: open another.
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port)
        answer = json.loads(body)
        pieces = [m["geometry"]["coordinates"] for m in answer.get("matchings", [])] if answer.get("code") == "Ok" else []
        out.write(json.dumps({"id": t["id"], "pieces": pieces, "seconds": seconds}) + "\n")
PY
$pin0 "$wayfare" bench match "$out/monaco.wfg" --trips "$trips" --peer "$out/osrm.jsonl" | tee "$out/match.jsonl"
