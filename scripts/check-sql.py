#!/usr/bin/env python3
"""Checks that each service keeps its SQL in one place: in Sources/Services, a statement is
run (`execute`, `query`, `first`, `fetchAll`, `fetchOne` on a connection) only in a file
named `…Statements.swift` (one store type per service) or in the few files that are their
own store type (the idempotency table, the shared small records); and no file outside
Storage reads a row's column by name (`row.int64("…")`): rows are decoded into `Decodable`
records. Exits 1 and prints one line per file and line that breaks the rule.
"""
import os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
services = os.path.join(root, "Sources", "Services")
# Files that are their own store type: the idempotency table's three statements live with
# its rule; StatementRecords holds the INSERT … RETURNING helper every store type shares.
OWN_STORE_TYPE = {"Idempotency.swift", "StatementRecords.swift"}
RUN = re.compile(r"\b(?:c|connection)\.(execute|query|first|fetchAll|fetchOne)\(")
BY_NAME = re.compile(r"\b(?:row|\$0)\.(?:int64|int|string|bool|optionalInt64|optionalString)\(\"")

problems = []
for directory, _, files in os.walk(services):
    for file in sorted(files):
        if not file.endswith(".swift") or file.endswith("Statements.swift") or file in OWN_STORE_TYPE:
            continue
        path = os.path.join(directory, file)
        for number, line in enumerate(open(path, encoding="utf-8"), 1):
            if RUN.search(line):
                problems.append(f"{os.path.relpath(path, root)}:{number}: SQL outside the service's …Statements type")
for top in ("Sources",):
    for directory, _, files in os.walk(os.path.join(root, top)):
        if os.sep + "Storage" in directory or "SQLiteStorage" in directory or "PostgresStorage" in directory:
            continue
        for file in sorted(files):
            if not file.endswith(".swift"):
                continue
            path = os.path.join(directory, file)
            text = open(path, encoding="utf-8").read()
            # Only files that see the store's rows (JSON objects have by-name readers too).
            if not re.search(r"^import (Storage|SQLiteStorage|PostgresStorage)$", text, re.M):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if BY_NAME.search(line):
                    problems.append(f"{os.path.relpath(path, root)}:{number}: a column read by name; decode a Decodable record")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
