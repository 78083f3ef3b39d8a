#!/usr/bin/env bash
# The bare tree against nanoflann in one run: `wayfare bench knn` (Wayfare's R-tree and its
# planar k-d tree baseline) and scripts/nanoflann-knn.cpp (nanoflann's static k-d tree on
# unit vectors, the same answers, with the queries' vectors computed before the clock or
# inside it; and on raw degrees, planar answers) on the same cabs and queries,
# alternating, all on core 0. Installs Debian's libnanoflann-dev when missing.
# Usage: scripts/knn-peer.sh FLEET_DIR [WAYFARE_BINARY] [ROUNDS]
#   FLEET_DIR holds cabs.csv and queries.csv (`wayfare fleet sample --out-dir FLEET_DIR`).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/knn-peer.sh FLEET_DIR [WAYFARE_BINARY] [ROUNDS]}
wayfare=${2:-.build/release/wayfare} rounds=${3:-3}
[ -x "$wayfare" ] || { echo "knn-peer: $wayfare: no such binary (swift build -c release --product wayfare)" >&2; exit 1; }
[ -f "$dir/cabs.csv" ] && [ -f "$dir/queries.csv" ] || { echo "knn-peer: $dir: no cabs.csv and queries.csv" >&2; exit 1; }
if [ ! -f /usr/include/nanoflann.hpp ]; then
    (apt-get install -y libnanoflann-dev || (apt-get update && apt-get install -y libnanoflann-dev)) >/dev/null
fi
peer=.build/nanoflann-knn
mkdir -p .build
g++ -O3 -march=native -std=c++17 scripts/nanoflann-knn.cpp -o "$peer"
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
for _ in $(seq "$rounds"); do
    $pin "$wayfare" bench knn --cabs "$dir/cabs.csv" --queries "$dir/queries.csv" --brute-queries 20
    $pin "$peer" "$dir/cabs.csv" "$dir/queries.csv" 3
done
