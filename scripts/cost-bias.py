#!/usr/bin/env python3
"""Costs without bias, measured: routes on a CSV-imported graph against SciPy's Dijkstra on
the file's own lengths and times (an oracle that shares nothing with Wayfare).

Picks SOURCES seeded junctions and TARGETS per source (1,000 pairs by default), asks
`wayfare bench route` for each pair from junction to junction (both metrics), and runs
SciPy's Dijkstra from each source over edges.csv. Prints one JSON line per binary and
metric: the median, 99th percentile and largest relative difference (signed median: a bias
shows as a positive median).

Usage: scripts/cost-bias.py GRID_DIR GRAPH.wfg[=LABEL] [MORE.wfg[=LABEL] …] [--binary B …]
  GRID_DIR holds nodes.csv and edges.csv (`wayfare graph grid`); each graph file is routed
  by the binary at the same position in --binary (default .build/release/wayfare).
"""
import argparse, csv, json, os, random, subprocess, sys, tempfile

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

ap = argparse.ArgumentParser()
ap.add_argument("grid")
ap.add_argument("graphs", nargs="+")
ap.add_argument("--binary", action="append")
ap.add_argument("--sources", type=int, default=50)
ap.add_argument("--targets", type=int, default=20)
ap.add_argument("--seed", type=int, default=42)
a = ap.parse_args()
binaries = a.binary or [".build/release/wayfare"] * len(a.graphs)
if len(binaries) != len(a.graphs):
    sys.exit("cost-bias: give one --binary per graph file")

ids, lat, lon = {}, [], []
with open(os.path.join(a.grid, "nodes.csv")) as f:
    for row in csv.DictReader(f):
        ids[row["id"]] = len(lat); lat.append(row["lat"]); lon.append(row["lon"])
n = len(lat)
rows, cols, length, time = [], [], [], []
with open(os.path.join(a.grid, "edges.csv")) as f:
    for row in csv.DictReader(f):
        u, v = ids[row["from"]], ids[row["to"]]
        if u == v:
            continue
        rows.append(u); cols.append(v); length.append(float(row["length_m"])); time.append(float(row["time_s"]))
rows, cols = np.array(rows), np.array(cols)

def matrix(w):
    # Parallel edges: SciPy would add them up, so keep the cheapest of each (u, v) first.
    order = np.lexsort((w, cols, rows))
    r, c, w = rows[order], cols[order], np.array(w)[order]
    first = np.ones(len(r), bool); first[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
    return csr_matrix((w[first], (r[first], c[first])), shape=(n, n))

rng = random.Random(a.seed)
sources = rng.sample(range(n), a.sources)
exact = {"time": dijkstra(matrix(time), indices=sources), "distance": dijkstra(matrix(length), indices=sources)}
pairs = []
for i, s in enumerate(sources):
    reachable = np.flatnonzero(np.isfinite(exact["time"][i]) & (exact["time"][i] > 60))
    if len(reachable) < n // 2:
        continue  # a source outside the kept strongly connected part
    for t in rng.sample(list(reachable), a.targets):
        pairs.append((i, int(t)))

with tempfile.TemporaryDirectory() as tmp:
    od = os.path.join(tmp, "od.csv")
    with open(od, "w") as f:
        f.write("o_lat,o_lon,d_lat,d_lon\n")
        for i, t in pairs:
            s = sources[i]
            f.write(f"{lat[s]},{lon[s]},{lat[t]},{lon[t]}\n")
    for graph, binary in zip(a.graphs, binaries):
        path, _, label = graph.partition("=")
        for metric, column in (("time", "duration_s"), ("distance", "distance_m")):
            out = os.path.join(tmp, "out.csv")
            subprocess.run([binary, "bench", "route", path, "--od", od, "--metric", metric, "--out", out],
                           check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                got = {int(r["i"]): float(r[column]) for r in csv.DictReader(f)}
            rel = np.array([(got[k] - exact[metric][i][t]) / exact[metric][i][t]
                            for k, (i, t) in enumerate(pairs) if k in got])
            print(json.dumps({"graph": label or path, "metric": metric, "pairs": len(rel),
                              "median": float(np.median(rel)), "p99_abs": float(np.percentile(np.abs(rel), 99)),
                              "max_abs": float(np.max(np.abs(rel)))}))
