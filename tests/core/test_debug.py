"""Debug data of a bake (core/debug.py): voxel tops, regions, contours, on request only."""

import numpy as np
import pytest

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.debug import VOXEL_TOP, BakeDebug
from blender_navjump.core.kinds import AREA_CROUCH, AREA_STAND
from tests.scenes import Scene

# A 12 x 8 m floor; a slab 1.4 m up over x 8..12 (crouch under it); a 1 x 1 m pillar
# 3 m tall at (3, 4) (its top too small to stand on); a separate 3 x 3 m floor at x 20.
SETTINGS = BakeSettings(cell_size=0.2, cell_height=0.1, agent_radius=0.4,
                        agent_max_climb=0.3, multi_stance=True, region_min_size=0,
                        stand_height=1.8, crouch_height=1.0, prone_height=0.5)


def level():
    s = Scene().floor(0, 0, 12, 8).floor(20, 0, 23, 3)
    s.box(8, -1, 1.4, 12, 9, 1.6)
    s.box(2.5, 3.5, 0, 3.5, 4.5, 3.0)
    return s.arrays()


@pytest.fixture(scope="module")
def baked():
    v, t = level()
    debug = BakeDebug()
    return bake(v, t, SETTINGS, debug=debug), debug, bake(v, t, SETTINGS)


def test_debug_changes_nothing_in_the_bake(baked):
    nm, _debug, plain = baked
    assert nm.equals(plain)


def test_voxel_tops_say_walkable_and_stance(baked):
    nm, debug, _plain = baked
    sp = debug.spans
    assert sp.dtype == VOXEL_TOP and sp.shape[0] > 0
    assert debug.cell_size == pytest.approx(0.2) and debug.cell_height == pytest.approx(0.1)

    def at(x, y, z):  # the top nearest (x, y) at height ~z
        near = (np.abs(sp["x"] - x) <= 0.1 + 1e-6) & (np.abs(sp["y"] - y) <= 0.1 + 1e-6) \
            & (np.abs(sp["z"] - z) < 0.12)
        assert near.sum() == 1, (x, y, z, near.sum())
        return sp[near][0]

    # a surface at height z has its voxel top one cell height above (Recast's rounding up)
    top = debug.cell_height
    assert at(5.1, 2.1, 0.0 + top)["area"] == AREA_STAND
    assert at(10.1, 4.1, 0.0 + top)["area"] == AREA_CROUCH      # under the slab
    assert at(10.1, 4.1, 1.6 + top)["area"] == AREA_STAND       # on top of the slab
    assert at(10.1, 4.1, 1.4 + top)["area"] == 0                # the slab's underside
    assert at(3.1, 4.1, 3.0 + top)["area"] == 0                 # the pillar's top: too small
    assert at(0.1, 4.1, 0.0 + top)["area"] == 0                 # eroded: the floor's edge
    # every walkable top has a region, no unwalkable one has
    walk = sp["area"] > 0
    assert (sp["region"][walk] > 0).all() and (sp["region"][~walk] == 0).all()
    # the walkable tops cover the navmesh's area (one cell each)
    cells = walk.sum() * debug.cell_size ** 2
    assert cells == pytest.approx(nm.stats["walkable_area_m2"], rel=0.08)
    # the regions of the polygons are the regions of the tops
    assert set(np.unique(nm.polygon_region)) == set(np.unique(sp["region"][walk]))


def test_contours_outline_the_regions(baked):
    nm, debug, _plain = baked
    assert debug.contour_count == int(nm.stats["contours"]) > 0
    assert debug.contour_start[0] == 0 and debug.contour_start[-1] == len(debug.contour_points)
    assert set(debug.contour_region.tolist()) == set(np.unique(nm.polygon_region).tolist())
    # the separate floor's outline: its square shrunk by the agent radius
    island = [i for i in range(debug.contour_count)
              if debug.contour_points[debug.contour_start[i]:debug.contour_start[i + 1], 0].min()
              > 15]
    assert len(island) == 1
    pts = debug.contour_points[debug.contour_start[island[0]]:debug.contour_start[island[0] + 1]]
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    np.testing.assert_allclose(lo[:2], [20.4, 0.4], atol=0.21)
    np.testing.assert_allclose(hi[:2], [22.6, 2.6], atol=0.21)
    assert np.abs(pts[:, 2] - debug.cell_height).max() < 0.11


def test_arrays_round_trip_and_bad_arrays_are_named(baked):
    _nm, debug, _plain = baked
    back = BakeDebug.from_arrays(debug.to_arrays())
    assert np.array_equal(back.spans, debug.spans)
    assert np.array_equal(back.contour_points, debug.contour_points)
    arrays = debug.to_arrays()
    arrays["contour_start"] = arrays["contour_start"][:-1]
    with pytest.raises(ValueError, match="contour_start"):
        BakeDebug.from_arrays(arrays)
    with pytest.raises(ValueError, match="missing spans"):
        BakeDebug.from_arrays({k: v for k, v in debug.to_arrays().items() if k != "spans"})
