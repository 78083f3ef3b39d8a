#!/usr/bin/env python3
"""Fails when a public declaration of a library module has no /// doc comment.

DocC does not warn about undocumented symbols, so this reads the sources: every line that
declares something `public` (and every case of a public enum) must follow a `///` line,
attributes aside. Prints each miss as file:line and exits 1 when there is any.
"""
import glob
import re
import sys

missing = []
for path in sorted(glob.glob("Sources/*/*.swift")):
    if "/WayfareCLI/" in path or "/BackendExample/" in path:
        continue
    lines = open(path, encoding="utf-8").read().split("\n")

    def documented(i):
        j = i - 1
        while j >= 0 and lines[j].strip().startswith("@"):
            j -= 1
        return j >= 0 and (lines[j].strip().startswith("///") or lines[j].strip().endswith("*/"))

    enums, depth = [], 0  # (is public, brace depth at the declaration)
    for i, line in enumerate(lines):
        s = line.strip()
        m = re.match(r"(public|package)?\s*(indirect\s+)?enum\s+\w+", s)
        if m and "{" in s:
            enums.append((m.group(1) == "public", depth))
        is_public = re.match(r"(@\w+(\([^)]*\))?\s+)*public\s", s) and not s.startswith("public extension")
        is_case = (enums and enums[-1][0] and depth == enums[-1][1] + 1
                   and re.match(r"case\s+\w", s) and not s.endswith(":"))
        if (is_public or is_case) and not documented(i):
            missing.append(f"{path}:{i + 1}: {s[:100]}")
        depth += line.count("{") - line.count("}")
        while enums and depth <= enums[-1][1]:
            enums.pop()

for m in missing:
    print(m)
if missing:
    print(f"{len(missing)} public declarations without a doc comment", file=sys.stderr)
    sys.exit(1)
print("every public declaration has a doc comment", file=sys.stderr)
