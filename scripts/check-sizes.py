#!/usr/bin/env python3
"""Checks that no Swift source file of the project (Sources, Tests, Benchmarks, tracked by
git) is over 600 lines: a file that long holds more than one concern and should be split
by concern, as the Bookings service and the Router were. Exits 1 and prints one line per
file over the limit.
"""
import os, subprocess, sys

LIMIT = 600
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
files = subprocess.run(["git", "-C", root, "ls-files", "*.swift"], check=True,
                       capture_output=True, text=True).stdout.split()
problems = []
for path in files:
    if not path.startswith(("Sources/", "Tests/", "Benchmarks/")):
        continue
    with open(os.path.join(root, path), encoding="utf-8") as f:
        count = sum(1 for _ in f)
    if count > LIMIT:
        problems.append(f"{path}: {count} lines, over {LIMIT}: split it by concern")
for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f"no Swift file over {LIMIT} lines ({len(files)} files)")
