#!/usr/bin/env python3
"""Checks every link of README.md, CONTRIBUTING.md and docs/*.md: a relative link names a
file or folder that exists, and a `#fragment` names a heading of the page it points to
(GitHub's anchors: lower case, punctuation dropped, spaces to hyphens). Links to the web are
not fetched. Exits 1 with one line per broken link."""
import glob, os, re, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pages = [os.path.join(root, "README.md"), os.path.join(root, "CONTRIBUTING.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def prose(text):
    """The page without its fenced code blocks and inline code (links there are not links)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path):
    found = set()
    counts = {}
    for line in open(path, encoding="utf-8").read().splitlines():
        m = re.match(r"^#{1,6}\s+(.*)$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower().replace("`", "")).replace(" ", "-")
        n = counts.get(slug, 0)
        counts[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


broken = []
checked = 0
for page in pages:
    if not os.path.exists(page):
        broken.append(f"{os.path.relpath(page, root)}: missing")
        continue
    for a, b in LINK.findall(prose(open(page, encoding="utf-8").read())):
        target = a or b
        if re.match(r"^[a-z]+:", target):
            continue
        checked += 1
        path, _, fragment = target.partition("#")
        file = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        where = os.path.relpath(page, root)
        if not os.path.exists(file):
            broken.append(f"{where}: {target} does not exist")
        elif fragment and file.endswith(".md") and fragment not in anchors(file):
            broken.append(f"{where}: {target} names no heading of {os.path.relpath(file, root)}")
for b in broken:
    print(b)
if broken:
    sys.exit(1)
print(f"{checked} links in {len(pages)} pages resolve")
