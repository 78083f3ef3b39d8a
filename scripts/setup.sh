#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build Wayfare: GEOS, PROJ, zlib and SQLite
# (C libraries and headers) and pkg-config. Does nothing when they are already there.
set -euo pipefail
need=()
pkg-config --exists geos 2>/dev/null || need+=(libgeos-dev)
pkg-config --exists proj 2>/dev/null || need+=(libproj-dev)
pkg-config --exists zlib 2>/dev/null || need+=(zlib1g-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
echo "setup: GEOS $(pkg-config --modversion geos), PROJ $(pkg-config --modversion proj)" >&2
