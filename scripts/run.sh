#!/usr/bin/env bash
# The main job: `wayfare demo` on Monaco from Data/. Builds the city folder into demo/city
# (once), serves it on loopback with a new SQLite store, runs an hour of simulated passengers
# and drivers against the server over HTTP, writes demo/summary.json and demo/map.svg, and
# prints the summary as its last line. Installs GEOS and PROJ first if they are missing.
# Extra arguments go to `wayfare demo` (for example --serve to keep the server up, --minutes N).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release --product wayfare >&2
exec .build/release/wayfare demo --out-dir demo "$@"
