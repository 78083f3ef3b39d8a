#!/usr/bin/env python3
"""Cabs and pickups on a graph's junctions near its middle, for `wayfare bench eta`.

The workload of the Routing benchmark's grid ETA rows, from the command line: the node in
the middle of NODES_CSV (the grid's centre for `wayfare graph grid`) is the centre, and
cabs and pickups are junctions drawn, seeded, from those within --radius-m of it.

Usage: scripts/eta-sample.py NODES_CSV OUT_DIR [--radius-m 5000] [--cabs 50] [--pickups 100] [--seed 9]
Writes OUT_DIR/cabs.csv (id,lat,lon) and OUT_DIR/pickups.csv (lat,lon).
"""
import argparse
import csv
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from files import write_whole  # noqa: E402
from geo import haversine_m  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("nodes")
    ap.add_argument("out_dir")
    ap.add_argument("--radius-m", type=float, default=5000)
    ap.add_argument("--cabs", type=int, default=50)
    ap.add_argument("--pickups", type=int, default=100)
    ap.add_argument("--seed", type=int, default=9)
    args = ap.parse_args()
    if not 0 < args.radius_m < float("inf"):
        sys.exit("eta-sample: --radius-m must be a positive, finite number of metres")
    for name, value in (("--cabs", args.cabs), ("--pickups", args.pickups)):
        if not 0 < value <= 1_000_000:
            sys.exit(f"eta-sample: {name} must be between 1 and 1,000,000")
    rows = []
    try:
        with open(args.nodes, newline="") as f:
            for line, r in enumerate(csv.DictReader(f), start=2):
                try:
                    lat, lon = float(r["lat"]), float(r["lon"])
                except (KeyError, TypeError, ValueError):
                    sys.exit(f"eta-sample: {args.nodes}:{line}: lat and lon must be numbers")
                if not (-90 <= lat <= 90 and -180 <= lon <= 180):
                    sys.exit(f"eta-sample: {args.nodes}:{line}: lat or lon out of range")
                rows.append((lat, lon))
    except OSError as e:
        sys.exit(f"eta-sample: {args.nodes}: {e.strerror}")
    if not rows:
        sys.exit(f"eta-sample: {args.nodes}: no nodes")
    centre = rows[len(rows) // 2]
    near = [p for p in rows if haversine_m(p, centre) <= args.radius_m]
    # The centre itself is always near, so `near` is never empty.
    rng = random.Random(args.seed)
    cabs = ["id,lat,lon"] + [f"c{i},{lat},{lon}" for i, (lat, lon) in enumerate(rng.choice(near) for _ in range(args.cabs))]
    pickups = ["lat,lon"] + [f"{lat},{lon}" for lat, lon in (rng.choice(near) for _ in range(args.pickups))]
    try:
        os.makedirs(args.out_dir, exist_ok=True)
        for name, lines in (("cabs.csv", cabs), ("pickups.csv", pickups)):
            write_whole(os.path.join(args.out_dir, name), "\n".join(lines) + "\n")
    except OSError as e:
        sys.exit(f"eta-sample: {args.out_dir}: {e.strerror}")
    print(f"eta-sample: {len(near)} junctions within {args.radius_m:g} m of {centre}", file=sys.stderr)


if __name__ == "__main__":
    main()
