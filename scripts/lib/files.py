"""Whole-file writes for the Python helpers: one definition of write, sync, rename."""
import os


def write_whole(path, data):
    """Writes `data` (str or bytes) to `path` whole or not at all: a temporary file beside
    it, synced, then renamed over it."""
    tmp = path + ".tmp"
    binary = isinstance(data, bytes)
    with open(tmp, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
