#!/usr/bin/env bash
# The grid's contraction against RoutingKit's in one run: `wayfare graph import` (both
# metrics, both cores) and `wayfare bench route` on the grid's OD pairs (core 1), then
# scripts/routingkit-ch.cpp (RoutingKit's ContractionHierarchy::build, one thread, core 0)
# on the same nodes.csv and edges.csv, once per metric. Builds RoutingKit from
# $ROUTINGKIT_DIR when given (a checkout), else clones it at a pinned commit into
# .build/routingkit (git and g++ needed).
# Usage: scripts/ch-peer.sh GRID_DIR [WAYFARE_BINARY] [METRICS]
#   GRID_DIR holds nodes.csv, edges.csv (`wayfare graph grid`) and od.csv (`wayfare graph od`).
#   METRICS: "time distance" unless given (RoutingKit's distance metric takes ten times
#   Wayfare's whole import on the grids measured).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/ch-peer.sh GRID_DIR [WAYFARE_BINARY] [METRICS]}
wayfare=${2:-.build/release/wayfare} metrics=${3:-time distance}
[ -x "$wayfare" ] || { echo "ch-peer: $wayfare: no such binary (swift build -c release --product wayfare)" >&2; exit 1; }
for f in nodes.csv edges.csv od.csv; do
    [ -f "$dir/$f" ] || { echo "ch-peer: $dir/$f: missing" >&2; exit 1; }
done
commit=247aef14a8df245f808042335a54b600024f4f00
rk=${ROUTINGKIT_DIR:-.build/routingkit}
if [ -z "${ROUTINGKIT_DIR:-}" ] && [ "$(git -C "$rk" rev-parse HEAD 2>/dev/null || true)" != "$commit" ]; then
    rm -rf "$rk"
    git clone -q https://github.com/RoutingKit/RoutingKit "$rk"
    git -C "$rk" checkout -q "$commit"
fi
[ -f "$rk/include/routingkit/contraction_hierarchy.h" ] || { echo "ch-peer: $rk: no RoutingKit sources" >&2; exit 1; }
peer=.build/routingkit-ch
g++ -O3 -march=native -DNDEBUG -std=c++17 -w -I"$rk/include" scripts/routingkit-ch.cpp \
    "$rk"/src/{contraction_hierarchy,graph_util,timer,bit_vector,vector_io,id_mapper,bit_select}.cpp -o "$peer"
pin0="" pin1=""
command -v taskset >/dev/null 2>&1 && pin0="taskset -c 0" pin1="taskset -c 1"
graph=$(mktemp --suffix .wfg)
trap 'rm -f "$graph"' EXIT
/usr/bin/time -f '{"wayfare":"import","seconds":%e,"peak_kb":%M}' \
    "$wayfare" graph import --nodes "$dir/nodes.csv" --edges "$dir/edges.csv" --out "$graph" 2>&1 | grep '^{'
for metric in $metrics; do
    $pin1 "$wayfare" bench route "$graph" --od "$dir/od.csv" --metric "$metric" | sed "s/^{/{\"wayfare\":\"route\",\"metric\":\"$metric\",/"
done
for metric in $metrics; do
    /usr/bin/time -f '{"peer":"RoutingKit","seconds":%e,"peak_kb":%M}' $pin0 "$peer" "$dir" "$metric" "$dir/od.csv"
done
