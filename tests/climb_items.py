"""Climb elements for the core climbing tests: named segments, a checked element set, and
random ledges, ladders and pipes."""

from __future__ import annotations

import math

import numpy as np

from blender_navjump.core import climb as C
from blender_navjump.core.kinds import CLIMB_LEDGE


def elements(*items):
    """``climb.make_elements`` of the items, which must give no warning."""
    el, warnings = C.make_elements(items)
    assert warnings == []
    return el


def seg(name, kind, a, b):
    return (name, kind, np.array([a, b], np.float64))


def random_segment(rng, extent):
    """(kind, end points (2, 3)): a level ledge 0.5-4 m long in any direction, or a ladder
    or pipe 0.5-5 m high, starting within ``extent`` of the origin above the ground."""
    kind = int(rng.integers(0, 3))
    p = rng.uniform(-extent, extent, 3)
    p[2] = abs(p[2])
    if kind == CLIMB_LEDGE:
        ang = rng.uniform(0, 2 * math.pi)
        q = p + rng.uniform(0.5, 4) * np.array([math.cos(ang), math.sin(ang), 0])
    else:
        q = p + np.array([0, 0, rng.uniform(0.5, 5)])
    return kind, np.array([p, q])
