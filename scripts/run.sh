#!/usr/bin/env bash
# The main job on the default city (Data/monaco): import and check the zones, then look up
# points. Installs GEOS and PROJ first if they are missing.
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
