#!/usr/bin/env bash
# A tour of the engine on the default city (Data/monaco): import and check the zones, then look
# up points; import the Monaco roads, route, rank cabs by ETA; build a geocoder table and query
# it; simulate an hour of the city at work, then the same through the services. Installs GEOS and PROJ first if they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release --product wayfare >&2
wayfare=.build/release/wayfare
out=.build/monaco
mkdir -p "$out"

echo "== wayfare zones check (the Monaco wards, with the communes as service areas)"
"$wayfare" zones check Data/monaco/wards.geojson --service-area Data/monaco/communes.geojson
echo
echo "== wayfare zones import -> $out/monaco.wfz"
"$wayfare" zones import Data/monaco/wards.geojson --service-area Data/monaco/communes.geojson --out "$out/monaco.wfz"
echo
echo "== wayfare zones lookup Data/monaco/points.csv"
"$wayfare" zones lookup "$out/monaco.wfz" --points Data/monaco/points.csv
echo
echo "== wayfare zones locate (the Casino de Monte-Carlo)"
"$wayfare" zones locate "$out/monaco.wfz" 43.7393,7.4277
echo
echo "== wayfare graph import Data/monaco/monaco.osm.pbf -> $out/monaco.wfg"
"$wayfare" graph import Data/monaco/monaco.osm.pbf --out "$out/monaco.wfg"
echo
echo "== wayfare route: Casino de Monte-Carlo to the Prince's Palace, fastest"
"$wayfare" route "$out/monaco.wfg" --from 43.7393,7.4277 --to 43.7314,7.4197
echo
echo "== wayfare route: the same, shortest, as GeoJSON"
"$wayfare" route "$out/monaco.wfg" --from 43.7393,7.4277 --to 43.7314,7.4197 --metric distance --geojson
echo
echo "== wayfare eta: cabs able to reach Port Hercule within 30 minutes, fastest first"
"$wayfare" eta "$out/monaco.wfg" --to 43.7347,7.4206 --cabs Data/monaco/cabs.csv
echo
echo "== wayfare bench route: 1,000 seeded pairs, contraction hierarchy then plain A*"
"$wayfare" graph od "$out/monaco.wfg" --pairs 1000 --seed 42 --out "$out/od.csv"
"$wayfare" bench route "$out/monaco.wfg" --od "$out/od.csv"
"$wayfare" bench route "$out/monaco.wfg" --od "$out/od.csv" --algorithm astar
echo
echo "== wayfare geocoder build (Monaco's addresses, streets and places) -> $out/monaco.wfgc"
"$wayfare" geocoder build --osm Data/monaco/monaco.osm.pbf --out "$out/monaco.wfgc"
echo
echo "== wayfare geocode \"bd des moulins\" and reverse at the Casino"
"$wayfare" geocode "$out/monaco.wfgc" "bd des moulins" --limit 3
"$wayfare" reverse "$out/monaco.wfgc" 43.7393,7.4277
echo
echo "== wayfare simulate: an hour of Monaco in virtual time (200 cabs, about 2,000 requests, its wards as zones)"
"$wayfare" simulate --out-dir "$out/simulation"
echo "(summary.json, trips.geojson, decisions.jsonl and drivers.csv in $out/simulation)"
echo
echo "== wayfare simulate --services: the same hour booked and paid through the services (40 cabs, a new SQLite store)"
rm -rf "$out/services-simulation"
"$wayfare" simulate --services --out-dir "$out/services-simulation"
echo "(summary.json, trips.geojson and services.sqlite in $out/services-simulation)"
