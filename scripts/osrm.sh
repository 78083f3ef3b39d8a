#!/usr/bin/env bash
# Prepares OSRM on Monaco's extract in DIR, from the osrm-bindings wheel on PyPI (unpacked,
# not installed, so any Python will do; the wheel is built for CPython 3.12 and later):
# DIR/wheel/osrm/bin holds osrm-routed, DIR/monaco.osrm the contracted data (--algorithm ch),
# DIR/mld/monaco.osrm the partitioned and customised data (--algorithm mld; partitioning
# renumbers the graph, so the two cannot share files). Prints the contracted data's path.
# Usage: scripts/osrm.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/osrm.sh DIR}
mkdir -p "$dir"
if [ ! -x "$dir/wheel/osrm/bin/osrm-routed" ]; then
    python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 \
        osrm-bindings -d "$dir" >/dev/null
    python3 -m zipfile -e "$dir"/osrm_bindings-*.whl "$dir/wheel"
    chmod +x "$dir"/wheel/osrm/bin/*
fi
cp Data/monaco/monaco.osm.pbf "$dir/monaco.osm.pbf"
"$dir/wheel/osrm/bin/osrm-extract" -p "$dir/wheel/osrm/share/profiles/car.lua" "$dir/monaco.osm.pbf" >"$dir/extract.log" 2>&1
rm -rf "$dir/mld" && mkdir -p "$dir/mld" && cp "$dir"/monaco.osrm* "$dir/mld/"
"$dir/wheel/osrm/bin/osrm-contract" "$dir/monaco.osrm" >"$dir/contract.log" 2>&1
"$dir/wheel/osrm/bin/osrm-partition" "$dir/mld/monaco.osrm" >"$dir/partition.log" 2>&1
"$dir/wheel/osrm/bin/osrm-customize" "$dir/mld/monaco.osrm" >"$dir/customize.log" 2>&1
echo "$dir/monaco.osrm"
