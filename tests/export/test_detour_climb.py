"""Climbing in the Detour export (docs/climbing.md, "Exports"): each way through the climb
graph is a one-way off-mesh connection (area 63, flag 0x80), checked in the real Detour
(the WASM build of ``@recast-navigation/core``, tests/export/node)."""

import numpy as np
import pytest
from scenes import Scene
from test_detour import DT_STRAIGHTPATH_OFFMESH_CONNECTION, detour_run, z_up

from blender_navjump.core import bake
from blender_navjump.core import climb as C
from blender_navjump.core.kinds import CLIMB_LADDER
from blender_navjump.core.settings import BakeSettings
from blender_navjump.export import detour


@pytest.fixture(scope="module")
def islands():
    """Ground and a 4 m platform (two navmesh islands) joined only by a ladder."""
    scene = Scene().floor(-10, -10, 10, 10).box(-4, 0, 0, 4, 4, 4)
    v, t = scene.arrays()
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False)
    nm = bake(v, t, settings)
    ladder = [("east-ladder", CLIMB_LADDER, np.array([(4.1, 2.0, 0.0), (4.1, 2.0, 4.0)]))]
    out, warnings = C.add_climbing(nm, ladder, v, t, settings)
    assert warnings == []
    return out


def test_transits_are_the_ways_through_the_climb_graph(islands):
    tr = C.climb_transits(islands)
    assert tr.cost.shape[0] >= 2  # up (foot -> top) and down (top -> foot)
    link_poly = islands.climb_link_poly
    for a, b, cost in zip(tr.entry_link, tr.exit_link, tr.cost, strict=True):
        assert islands.climb_link_bidirectional[a]  # an entry can be got on
        assert link_poly[a] != link_poly[b]
        # the ladder's length between its two links' nodes, plus both links
        na, nb = islands.climb_node_position[islands.climb_link_node[[a, b]]]
        assert cost == pytest.approx(islands.climb_link_length[a] + abs(nb[2] - na[2])
                                     + islands.climb_link_length[b], rel=1e-9)
    ups = tr.end[:, 2] > tr.start[:, 2] + 3.0
    assert ups.any() and (~ups).any()


def test_tile_carries_climbing_connections(islands):
    tile = detour.build_detour_tile(islands)
    tr = C.climb_transits(islands)
    n = tr.cost.shape[0]
    assert int(tile.header["offMeshConCount"]) == islands.link_count + n == n
    cons = tile.offmesh_cons
    assert np.all(cons["userId"] == detour.CLIMB_USER_ID + np.arange(n))
    assert np.all(cons["flags"] == 0)  # one way each
    polys = tile.polys[int(tile.header["offMeshBase"]):]
    assert np.all(tile.poly_area()[int(tile.header["offMeshBase"]):] == detour.CLIMB_AREA)
    assert np.all(polys["flags"] == detour.CLIMB_FLAG)
    assert np.allclose(z_up(cons["pos"][:, :3]), tr.start, atol=1e-5)
    assert np.allclose(z_up(cons["pos"][:, 3:]), tr.end, atol=1e-5)


def test_detour_climbs_between_the_islands(node_client, tmp_path, islands):
    ground, top = (8.0, 8.0, 0.2), (0.0, 2.0, 4.2)
    queries = [{"start": ground, "end": top}, {"start": top, "end": ground},
               {"start": ground, "end": top, "excludeFlags": detour.CLIMB_FLAG}]
    res = detour_run(node_client, tmp_path, islands, queries)
    up, down, no_climb = res["queries"]
    tr = C.climb_transits(islands)
    for q in (up, down):
        assert q["found"] and not q["partial"]
        assert any(p >= islands.polygon_count for p in q["corridor"])
        pts = z_up(q["straight"])
        at = [i for i, f in enumerate(q["straightFlags"])
              if f & DT_STRAIGHTPATH_OFFMESH_CONNECTION]
        assert at
        a, b = pts[at[0]], pts[at[0] + 1]
        assert any(np.allclose(a, s, atol=1e-4) and np.allclose(b, e, atol=1e-4)
                   for s, e in zip(tr.start, tr.end, strict=True))
    assert z_up(up["straight"])[-1][2] > 3.5 and z_up(down["straight"])[-1][2] < 0.5
    # an agent whose filter excludes climbing cannot get up
    assert no_climb["partial"] or not no_climb["found"]
