#!/usr/bin/env python3
"""Draws the README's module map from the layer comment at the top of Package.swift (which
scripts/check-imports.py holds to the targets), between the README's `module-map` markers.

    python3 scripts/module-map.py          rewrites the map in README.md
    python3 scripts/module-map.py --check  exits 1 when the README's map is not the one drawn now
"""
import os, re, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from files import write_whole  # noqa: E402

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
package = open(os.path.join(root, "Package.swift"), encoding="utf-8").read()
block = package[package.index("// Layers:"):package.index("let package")]
layers = []
for line in block.splitlines():
    if line.startswith("//   "):
        names, what = re.split(r"\s{2,}", line[5:].strip(), maxsplit=1)
        layers.append(([n.strip() for n in names.split(",")], what))

out = ["```mermaid", "flowchart BT"]
for i, (names, what) in enumerate(layers):
    label = " · ".join(names) + "<br/><small>" + what.replace('"', "'") + "</small>"
    out.append(f'  L{i}["{label}"]')
for i in range(1, len(layers)):
    out.append(f"  L{i - 1} --> L{i}")
out.append("```")
drawn = "\n".join(out)

path = os.path.join(root, "README.md")
readme = open(path, encoding="utf-8").read()
start, end = "<!-- module-map: drawn by scripts/module-map.py from Package.swift -->", "<!-- /module-map -->"
if start not in readme or end not in readme:
    sys.exit("README.md has no module-map markers")
now = readme[readme.index(start) + len(start):readme.index(end)].strip()
if "--check" in sys.argv:
    if now != drawn:
        sys.exit("README.md's module map is not Package.swift's layers: run python3 scripts/module-map.py")
    print("the README's module map is Package.swift's layers")
else:
    readme = readme[:readme.index(start) + len(start)] + "\n" + drawn + "\n" + readme[readme.index(end):]
    write_whole(path, readme)
    print("drew the module map into README.md")
