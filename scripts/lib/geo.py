"""Great-circle distance for the Python helpers, written apart from Wayfare's Swift code.

One definition for every script that needs it (`check-knn-answers.py`, `eta-sample.py`):
the haversine on the mean sphere, the radius Wayfare's Geodesy uses.
"""
import math

EARTH_RADIUS_M = 6371008.8


def haversine_m(a, b):
    """Metres between two (latitude, longitude) pairs in degrees."""
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dp, dl = p2 - p1, math.radians(b[1] - a[1])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))
