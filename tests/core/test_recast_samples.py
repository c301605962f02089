"""Recast's own sample meshes: our default bake is within 10% of Recast's default bake."""

import pytest
from navmesh_checks import assert_adjacency_symmetric, assert_convex_ccw

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.objio import read_obj

# Recast's default solo bake, measured on this machine class (shared/data/recast/README.md)
RECAST = {"dungeon.obj": (118, 1636.0), "nav_test.obj": (155, 4097.0)}


@pytest.mark.parametrize("name", sorted(RECAST))
@pytest.mark.parametrize("partition", ["watershed", "monotone"])
def test_default_bake_close_to_recast(recast_data, name, partition):
    v, t = read_obj(recast_data / name, up="y")
    nm = bake(v, t, BakeSettings(partition=partition))
    assert_convex_ccw(nm)
    assert_adjacency_symmetric(nm)
    polys, area = RECAST[name]
    assert nm.surface_area() == pytest.approx(area, rel=0.10)
    if partition == "watershed":
        assert nm.polygon_count == pytest.approx(polys, rel=0.10)
