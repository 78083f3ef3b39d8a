#!/usr/bin/env python3
"""Checks that Package.swift and the `import` lines agree, target by target, in the library's
package and in the benchmarks' package beside it, and that the layer comment at the top of
Package.swift names every shipped target with its dependencies above it:

- every module a target imports is declared as its dependency (a target, or a product of a
  package), never reached only through another target's dependencies;
- every declared dependency is imported by at least one of the target's files (a test may
  depend on an executable only to have it built).

Reads each package with `swift package dump-package`, so the check sees what SwiftPM sees.
Exits 1 and prints one line per disagreement. Modules of the toolchain and the system
(Foundation, Testing, Glibc, …) need no declaration.
"""
import json, os, re, subprocess, sys

SYSTEM = {"Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch", "Glibc", "Musl",
          "Darwin", "Testing", "XCTest", "Synchronization", "_Concurrency", "Swift", "os", "RegexBuilder", "Observation"}
IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+"
                    r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)
# Multi-line string literals hold other languages' text (a Python script's `import ssl`).
STRINGS = re.compile(r'"""(?:.|\n)*?"""')

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
env = dict(os.environ)
env.pop("WAYFARE_FUZZ", None)  # the fuzz harnesses are checked by their own build


def imports_of(folder):
    found = {}
    for directory, _, files in os.walk(folder):
        for file in sorted(files):
            if file.endswith(".swift"):
                path = os.path.join(directory, file)
                text = STRINGS.sub("", open(path, encoding="utf-8").read())
                for module in IMPORT.findall(text):
                    found.setdefault(module, os.path.relpath(path, root))
    return found


def check(package_folder):
    package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=package_folder, capture_output=True,
                                        text=True, check=True, env=env).stdout)
    prefix = "" if package_folder == root else os.path.relpath(package_folder, root) + "/"
    executables = {t["name"] for t in package["targets"] if t["type"] == "executable"}
    problems = []
    for target in package["targets"]:
        name, kind = target["name"], target["type"]
        if kind in ("system", "binary", "plugin", "macro"):
            continue
        folder = target.get("path") or os.path.join("Tests" if kind == "test" else "Sources", name)
        declared = set()
        for dep in target.get("dependencies", []):
            for key in ("byName", "target", "product"):
                if key in dep:
                    declared.add(dep[key][0])
        imported = imports_of(os.path.join(package_folder, folder))
        for module, where in sorted(imported.items()):
            if module not in SYSTEM and module != name and module not in declared:
                problems.append(f"{prefix}{name}: imports {module} ({where}) without declaring it in Package.swift")
        for module in sorted(declared):
            if kind == "test" and module in executables:
                continue
            if module not in imported:
                problems.append(f"{prefix}{name}: declares {module} but no file imports it")
    return len(package["targets"]), problems


def check_layers():
    """The layer comment at the top of Package.swift: every library and tool target named
    once, and each one's dependencies on earlier lines."""
    package = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, capture_output=True, text=True,
                                        check=True, env=env).stdout)
    text = open(os.path.join(root, "Package.swift"), encoding="utf-8").read()
    block = text[text.index("// Layers:"):text.index("let package")]
    layer = {}
    for number, line in enumerate(l for l in block.splitlines() if l.startswith("//   ")):
        names = re.split(r"\s{2,}", line[5:].strip())[0]
        for name in names.split(","):
            layer[name.strip()] = number
    problems = []
    shipped = [t for t in package["targets"] if t["type"] != "test" and not (t.get("path") or "Sources/").startswith(("Tests", "Examples"))]
    for t in shipped:
        if t["name"] not in layer:
            problems.append(f"Package.swift: the layer comment leaves out {t['name']}")
    known = {t["name"] for t in package["targets"]}
    for name in layer:
        if name not in known:
            problems.append(f"Package.swift: the layer comment names {name}, which is no target")
    for t in shipped:
        for dep in t.get("dependencies", []):
            for key in ("byName", "target"):
                if key in dep and dep[key][0] in layer and t["name"] in layer and layer[dep[key][0]] >= layer[t["name"]]:
                    problems.append(f"Package.swift: {t['name']} depends on {dep[key][0]}, which is not on a line above it")
    return problems


targets, problems = 0, check_layers()
for folder in (root, os.path.join(root, "Benchmarks")):
    n, found = check(folder)
    targets += n
    problems += found
for p in problems:
    print(p)
if problems:
    print(f"{len(problems)} disagreements between Package.swift and the imports", file=sys.stderr)
    sys.exit(1)
print(f"Package.swift and the imports agree ({targets} targets in 2 packages)")
