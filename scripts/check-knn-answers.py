#!/usr/bin/env python3
"""Independent check of `wayfare bench knn --answers`: a brute-force great-circle ranking.

usage: check-knn-answers.py CABS.csv QUERIES.csv ANSWERS.csv [MOVES.csv] [--limit N]

Ranks every cab (after the moves, if given) by haversine distance on the mean sphere
(R = 6371008.8 m) for the first N queries and compares each rank's distance with the
answer's. Ties in distance may come in any order, so only distances are compared
(to 1 mm). Prints the mismatch count; exits 1 when there is any.
"""
import csv, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from geo import haversine_m as haversine  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))

def main(argv):
    limit = 500
    if "--limit" in argv:
        i = argv.index("--limit"); limit = int(argv[i + 1]); del argv[i:i + 2]
    cabs_path, queries_path, answers_path = argv[1:4]
    cabs = {r["id"]: (float(r["lat"]), float(r["lon"])) for r in read(cabs_path)}
    if len(argv) > 4:
        for r in read(argv[4]):
            cabs[r["id"]] = (float(r["lat"]), float(r["lon"]))
    queries = [(float(r["lat"]), float(r["lon"])) for r in read(queries_path)][:limit]
    answers = {}
    for r in read(answers_path):
        answers.setdefault(int(r["query"]), []).append((int(r["rank"]), r["id"], float(r["distance_m"])))
    mismatches = 0
    for qi, q in enumerate(queries):
        got = sorted(answers.get(qi, []))
        truth = sorted(haversine(q, p) for p in cabs.values())[:len(got)]
        for (rank, cab, d), t in zip(got, truth):
            if abs(d - t) > 1e-3 or abs(haversine(q, cabs[cab]) - d) > 1e-3:
                mismatches += 1
    print(f"queries checked: {len(queries)}, mismatches: {mismatches}")
    return 1 if mismatches else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv))
