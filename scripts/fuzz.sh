#!/usr/bin/env bash
# libFuzzer over every loader: zone file, graph file, geocoder table, OSM PBF, GeoJSON, CSV.
#
#   bash scripts/fuzz.sh [seconds per harness, default 60] [harness names...]
#
# Builds the harnesses (Fuzz/, only compiled when WAYFARE_FUZZ is set) with the toolchain's
# fuzzer and address sanitizers into .build-fuzz, makes a seed corpus from the real files in
# Data/monaco, and runs each harness for the given time. A crash stops the script with the
# input saved under .build-fuzz/crashes/<harness>/; add it to the test suite as a case.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
if ! [[ "$seconds" =~ ^[1-9][0-9]{0,4}$ ]]; then
    echo "fuzz.sh: seconds per harness must be a whole number from 1 to 99999, not \"$seconds\"" >&2
    exit 2
fi
harnesses=("$@")
all=(FuzzZones FuzzGraph FuzzGeocoder FuzzOSMPBF FuzzGeoJSON FuzzCSV)
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")
for h in "${harnesses[@]}"; do
    [[ " ${all[*]} " == *" $h "* ]] || { echo "fuzz.sh: unknown harness \"$h\" (known: ${all[*]})" >&2; exit 2; }
done
bash scripts/setup.sh
work=.build-fuzz
mkdir -p "$work"

# Seeds. The binary files' seeds are their payloads (the 32-byte header removed): each
# harness wraps its input in a valid container, so mutants are never stopped by the checksum.
# Made afresh on every run, so that the seeds always have the current file formats.
seeds=$work/seeds
{
    echo "fuzz: making the seed corpus from Data/monaco" >&2
    rm -rf "$seeds"; mkdir -p "$seeds"/{FuzzZones,FuzzGraph,FuzzGeocoder,FuzzOSMPBF,FuzzGeoJSON,FuzzCSV}
    swift build --product wayfare >/dev/null
    wayfare=$(swift build --show-bin-path)/wayfare
    "$wayfare" zones import Data/monaco/wards.geojson --service-area Data/monaco/communes.geojson --out "$work/monaco.wfz" >/dev/null 2>&1
    "$wayfare" graph import Data/monaco/monaco.osm.pbf --out "$work/monaco.wfg" >/dev/null 2>&1
    "$wayfare" geocoder build --osm Data/monaco/monaco.osm.pbf --out "$work/monaco.wfgc" >/dev/null 2>&1
    tail -c +33 "$work/monaco.wfz" > "$seeds/FuzzZones/monaco"
    tail -c +33 "$work/monaco.wfg" > "$seeds/FuzzGraph/monaco"
    tail -c +33 "$work/monaco.wfgc" > "$seeds/FuzzGeocoder/monaco"
    # A small PBF imports in milliseconds, so the harness also runs the graph import and the
    # geocoder build on it; osmium cuts one out of Monaco when it is installed.
    if ! command -v osmium >/dev/null 2>&1; then
        sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
        { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq osmium-tool >/dev/null; } || true
    fi
    if command -v osmium >/dev/null 2>&1; then
        osmium extract -b 7.4200,43.7350,7.4300,43.7420 Data/monaco/monaco.osm.pbf -o "$seeds/FuzzOSMPBF/casino.osm.pbf" --overwrite >/dev/null 2>&1
    fi
    cp Data/monaco/monaco.osm.pbf "$seeds/FuzzOSMPBF/monaco.osm.pbf"
    cp Data/monaco/*.geojson "$seeds/FuzzGeoJSON/"
    cp Data/monaco/*.csv "$seeds/FuzzCSV/"
    # A graph as the CSV harness reads it: nodes, a blank line, edges (two-way, one-way, WKT).
    printf 'id,lat,lon\na,43.7300,7.4200\nb,43.7310,7.4200\nc,43.7310,7.4215\n\nfrom,to,length_m,time_s,wkt\na,b,111.2,10,\nb,a,111.2,10,\nb,c,120.7,12,"LINESTRING (7.4200 43.7310, 7.4208 43.7311, 7.4215 43.7310)"\n' \
        > "$seeds/FuzzCSV/graph.csv"
}

echo "fuzz: building ${harnesses[*]} with -sanitize=fuzzer,address" >&2
for h in "${harnesses[@]}"; do
    # lld: gold fails on these links with an internal error.
    WAYFARE_FUZZ=1 swift build -c release --scratch-path "$work/build" --product "$h" \
        --toolset Fuzz/toolset.json -Xswiftc -sanitize=fuzzer,address >/dev/null
done
bin=$(WAYFARE_FUZZ=1 swift build -c release --scratch-path "$work/build" --toolset Fuzz/toolset.json \
      -Xswiftc -sanitize=fuzzer,address --show-bin-path)

for h in "${harnesses[@]}"; do
    corpus=$work/corpus/$h; crashes=$work/crashes/$h
    mkdir -p "$corpus" "$crashes"
    echo "fuzz: $h for ${seconds}s" >&2
    # -rss_limit_mb: a loader that allocates without bound is a finding too.
    # -detect_leaks=0: Foundation's FileManager.contents(atPath:) leaks a 4 KB buffer when it
    # reads an empty file (FoundationEssentials readBytesFromFile), which is not ours to fix.
    # The Swift backtracer and ASan's report would race for the same crash: ASan reports.
    if ! SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin/$h" "$corpus" "$seeds/$h" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=20 -detect_leaks=0 \
            -max_len=4000000 -artifact_prefix="$crashes/" -print_final_stats=1 2> "$work/$h.log"; then
        tail -40 "$work/$h.log" >&2
        echo "fuzz: $h found a crash; the input is in $crashes/" >&2
        exit 1
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/$h.log" | tr '\n' ' ' >&2; echo >&2
done
echo "fuzz: no crash in ${harnesses[*]} (${seconds}s each)" >&2
