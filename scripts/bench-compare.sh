#!/usr/bin/env bash
# Two release builds of `wayfare` on the same inputs, in alternation, for a refactoring's
# before and after: bench knn (100,000 cabs), bench route (Monaco and a 200,000-node grid),
# bench eta (50 cabs) and bench fleet, ROUNDS rounds each. One JSON line per run, prefixed
# with OLD or NEW; compare medians, and each run against the baseline it prints.
#
#   bash scripts/bench-compare.sh OLD_WAYFARE NEW_WAYFARE [ROUNDS, default 3] [WORK_DIR]
set -euo pipefail
old=$1 new=$2 rounds=${3:-3}
root="$(cd "$(dirname "$0")/.." && pwd)"
work=${4:-$(mktemp -d /tmp/wayfare-bench.XXXXXX)}
for bin in "$old" "$new"; do [ -x "$bin" ] || { echo "bench-compare.sh: $bin is not an executable" >&2; exit 2; }; done
if ! [[ "$rounds" =~ ^[1-9][0-9]?$ ]]; then echo "bench-compare.sh: ROUNDS must be 1 to 99, not \"$rounds\"" >&2; exit 2; fi
cd "$work"
"$new" fleet sample --cabs 100000 --queries 100000 --seed 42 --out-dir fleet > /dev/null
"$new" graph import "$root/Data/monaco/monaco.osm.pbf" --out monaco.wfg > /dev/null 2>&1
"$new" graph od monaco.wfg --pairs 1000 --seed 42 --out od.csv > /dev/null
"$new" graph od monaco.wfg --pairs 1000 --seed 7 --out od7.csv > /dev/null
awk -F, 'NR==1{print "id,lat,lon"} NR>1&&NR<=51{print "c"NR-1","$1","$2}' od7.csv > cabs50.csv
awk -F, 'NR==1{print "lat,lon"} NR>1{print $3","$4}' od7.csv > pickups.csv
"$new" graph grid --nodes 200000 --seed 42 --out-dir grid > /dev/null 2>&1
"$new" graph import --nodes grid/nodes.csv --edges grid/edges.csv --out grid.wfg > /dev/null 2>&1
"$new" graph od grid.wfg --pairs 1000 --out grid-od.csv > /dev/null
for _ in $(seq "$rounds"); do
    for who in OLD NEW; do
        bin=$old; [ "$who" = NEW ] && bin=$new
        echo "$who knn $("$bin" bench knn --cabs fleet/cabs.csv --queries fleet/queries.csv --moves fleet/moves.csv | tail -1)"
        echo "$who route-monaco $("$bin" bench route monaco.wfg --od od.csv | tail -1)"
        echo "$who route-grid $("$bin" bench route grid.wfg --od grid-od.csv | tail -1)"
        echo "$who eta $("$bin" bench eta monaco.wfg --cabs cabs50.csv --pickups pickups.csv | tail -1)"
        echo "$who fleet $("$bin" bench fleet --cabs fleet/cabs.csv --queries fleet/queries.csv --moves fleet/moves.csv | tail -1)"
    done
done
