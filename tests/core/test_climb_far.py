"""Climbing 5 km from the origin (issue 13, bad input): a whole level there bakes the same
climb graph, found ledges and climbing path as at the origin, shifted."""

import numpy as np
import pytest
from scenes import Scene

from blender_navjump.core import bake
from blender_navjump.core import climb as C
from blender_navjump.core.kinds import CLIMB_LADDER
from blender_navjump.core.query import find_path
from blender_navjump.core.settings import BakeSettings

FAR = np.array([5000.0, -5000.0, 0.0])
SETTINGS = BakeSettings(climbing_enabled=True)


def climbing_level(shift):
    scene = Scene().floor(-10, -10, 10, 10).box(-4, 0, 0, 4, 4, 4)
    v, t = scene.arrays()
    v = v + shift
    nm = bake(v, t, SETTINGS)
    ladder = [("east-ladder", CLIMB_LADDER,
               np.array([(4.1, 2.0, 0.0), (4.1, 2.0, 4.0)]) + shift)]
    out, warnings = C.add_climbing(nm, ladder, v, t, SETTINGS)
    assert warnings == []
    return out


def test_climbing_path_5_km_from_the_origin_matches_the_one_at_the_origin():
    near, far = climbing_level(np.zeros(3)), climbing_level(FAR)
    assert far.climb_element_kind.shape[0] == near.climb_element_kind.shape[0]
    assert np.allclose(far.climb_element_ends - FAR, near.climb_element_ends, atol=1e-6)
    assert far.climb_edge_kind.shape[0] == near.climb_edge_kind.shape[0]
    assert far.climb_link_kind.shape[0] == near.climb_link_kind.shape[0]
    start, goal = np.array([8.0, 8.0, 0.0]), np.array([0.0, 2.0, 4.0])
    a = find_path(near, start, goal)
    b = find_path(far, start + FAR, goal + FAR)
    assert a.found and a.climbing and b.found and b.climbing
    assert b.flag_names == a.flag_names
    assert b.cost == pytest.approx(a.cost, abs=1e-6)
    assert np.allclose(b.points - FAR, a.points, atol=1e-6)
