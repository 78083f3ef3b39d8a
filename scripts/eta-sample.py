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
    if not (args.radius_m > 0 and args.cabs > 0 and args.pickups > 0):
        sys.exit("eta-sample: --radius-m, --cabs and --pickups must be positive")
    with open(args.nodes, newline="") as f:
        rows = [(float(r["lat"]), float(r["lon"])) for r in csv.DictReader(f)]
    if not rows:
        sys.exit(f"eta-sample: {args.nodes}: no nodes")
    centre = rows[len(rows) // 2]
    near = [p for p in rows if haversine_m(p, centre) <= args.radius_m]
    rng = random.Random(args.seed)
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "cabs.csv"), "w") as f:
        f.write("id,lat,lon\n")
        for i in range(args.cabs):
            lat, lon = rng.choice(near)
            f.write(f"c{i},{lat},{lon}\n")
    with open(os.path.join(args.out_dir, "pickups.csv"), "w") as f:
        f.write("lat,lon\n")
        for _ in range(args.pickups):
            lat, lon = rng.choice(near)
            f.write(f"{lat},{lon}\n")
    print(f"eta-sample: {len(near)} junctions within {args.radius_m:g} m of {centre}", file=sys.stderr)


if __name__ == "__main__":
    main()
