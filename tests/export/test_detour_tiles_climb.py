"""Climbing in the multi-tile Detour export (docs/climbing.md, docs/tiles.md): each way
through the climb graph goes into the tile of its start point; a way ending beyond the
neighbouring tile is left out with a DetourExportWarning. Checked in the real Detour
(``@recast-navigation/core``, tests/export/node)."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from scenes import Scene
from test_detour import DT_STRAIGHTPATH_OFFMESH_CONNECTION, z_up
from test_detour_tiles import y_up

from blender_navjump.core import bake
from blender_navjump.core import climb as C
from blender_navjump.core.kinds import CLIMB_LADDER
from blender_navjump.core.settings import BakeSettings
from blender_navjump.export import detour

# tiles of 32 cells of 0.3 m from x = -10: a tile line at x = -0.4, the box's east face
EDGE_X = -0.4


@pytest.fixture(scope="module")
def tiled_islands():
    """Ground and a 4 m platform joined only by ladders on the platform's east and south
    faces, which are tile edges: each ladder's foot is in one tile, its top in the next."""
    scene = Scene().floor(-10, -10, 14, 10).box(-8, EDGE_X, 0, EDGE_X, 4, 4)
    v, t = scene.arrays()
    settings = BakeSettings(climbing_enabled=True, auto_ledges=False, tile_size=32)
    nm = bake(v, t, settings)
    assert nm.tiled and nm.stats["tile_grid"]["origin"] == [-10.0, -10.0]
    ladder = [("edge-ladder", CLIMB_LADDER,
               np.array([(EDGE_X + 0.1, 2.0, 0.0), (EDGE_X + 0.1, 2.0, 4.0)])),
              ("south-ladder", CLIMB_LADDER,
               np.array([(-4.0, EDGE_X - 0.1, 0.0), (-4.0, EDGE_X - 0.1, 4.0)]))]
    out, found = C.add_climbing(nm, ladder, v, t, settings)
    assert found == []
    return out


def _tile_xy(p):
    """The tile column and row of a Z-up point (tiles of 9.6 m from -10, -10)."""
    return np.floor((np.asarray(p)[:2] + 10.0) / 9.6).astype(int)


def _climb_cons(parsed):
    """(tile index, userId, Z-up start, Z-up end) of every climbing connection."""
    rows = []
    for i, t in enumerate(parsed.tiles):
        base = int(t.header["offMeshBase"])
        area = t.poly_area()[base:]
        for c, a in zip(t.offmesh_cons, area, strict=True):
            if a == detour.CLIMB_AREA:
                rows.append((i, int(c["userId"]), z_up(c["pos"][:3]), z_up(c["pos"][3:])))
    return rows


def test_climbs_go_into_the_tile_of_their_start(tiled_islands, tmp_path):
    nm = tiled_islands
    tr = C.climb_transits(nm)
    tile = nm.polygon_tile
    a = tile[nm.climb_link_poly[tr.entry_link]]
    b = tile[nm.climb_link_poly[tr.exit_link]]
    assert (a != b).all() and tr.cost.shape[0] >= 2  # every way crosses the tile edge
    with warnings.catch_warnings():
        warnings.simplefilter("error", detour.DetourExportWarning)
        path = detour.write_detour(nm, tmp_path / "nav.detour.bin")
    parsed = detour.read_detour(path)
    tile_ids = np.unique(tile)  # the set's tiles, in order
    got = _climb_cons(parsed)
    assert sorted(u - detour.CLIMB_USER_ID for _, u, _, _ in got) == list(
        range(tr.cost.shape[0]))
    for i, u, s, e in got:
        row = u - detour.CLIMB_USER_ID
        assert tile_ids[i] == a[row]
        assert np.allclose(s, tr.start[row], atol=1e-4)
        assert np.allclose(e, tr.end[row], atol=1e-4)


def test_detour_climbs_across_the_tile_edge(node_client, tiled_islands, tmp_path):
    nm = tiled_islands
    f = detour.write_detour(nm, tmp_path / "nav.detour.bin")
    ground, top = (8.0, 8.0, 0.2), (-4.0, 2.0, 4.2)
    queries = [(ground, top, 0), (top, ground, 0), (ground, top, detour.CLIMB_FLAG)]
    request = {"navmeshes": [{"file": str(f), "kind": "mset"}], "dump": False,
               "queries": [{"start": y_up(s)[0].tolist(), "end": y_up(e)[0].tolist(),
                            **({"excludeFlags": x} if x else {})} for s, e, x in queries],
               "points": [], "pointHalfExtents": [0.05, 2.0, 0.05]}
    res = node_client.request("navjump_detour.mjs", "query", request, tmp_path)["results"][0]
    up, down, no_climb = res["queries"]
    tr = C.climb_transits(nm)
    tile = nm.polygon_tile
    for q in (up, down):
        assert q["found"] and not q["partial"], q
        pts = z_up(q["straight"])
        at = [i for i, fl in enumerate(q["straightFlags"])
              if fl & DT_STRAIGHTPATH_OFFMESH_CONNECTION]
        assert at
        a, b = pts[at[0]], pts[at[0] + 1]
        row = [k for k, (s, e) in enumerate(zip(tr.start, tr.end, strict=True))
               if np.allclose(a, s, atol=1e-4) and np.allclose(b, e, atol=1e-4)]
        assert row  # a climbing connection...
        k = row[0]  # ...from one tile into the next
        assert tile[nm.climb_link_poly[tr.entry_link[k]]] != \
            tile[nm.climb_link_poly[tr.exit_link[k]]]
        assert (_tile_xy(a) != _tile_xy(b)).any()
    assert z_up(up["straight"])[-1][2] > 3.5 and z_up(down["straight"])[-1][2] < 0.5
    assert no_climb["partial"] or not no_climb["found"]


def test_a_way_beyond_the_neighbouring_tile_is_left_out_and_reported(tiled_islands,
                                                                      tmp_path):
    nm = tiled_islands
    tr = C.climb_transits(nm)
    # move the exit link of the way down (from the box top, tile column 0) two tiles away
    # (same navmesh otherwise)
    tiles_x = nm.stats["tile_grid"]["tiles"][0]
    entry_tile = nm.polygon_tile[nm.climb_link_poly[tr.entry_link]]
    r = int(np.nonzero(entry_tile % tiles_x == 0)[0][0])
    k = int(tr.exit_link[r])
    start_tile = int(entry_tile[r])
    far_tiles = [t for t in np.unique(nm.polygon_tile).tolist()
                 if abs(t % tiles_x - start_tile % tiles_x) > 1
                 or abs(t // tiles_x - start_tile // tiles_x) > 1]
    assert far_tiles
    far_poly = int(np.nonzero(nm.polygon_tile == far_tiles[0])[0][0])
    link_poly = nm.climb_link_poly.copy()
    link_poly[k] = far_poly
    point = nm.climb_link_point.copy()
    point[k] = nm.vertices[nm.polygons[far_poly, :3]].mean(axis=0)
    moved = dataclasses.replace(nm, climb_link_poly=link_poly, climb_link_point=point)
    tr2 = C.climb_transits(moved)
    a2 = nm.polygon_tile[link_poly[tr2.entry_link]]
    b2 = nm.polygon_tile[link_poly[tr2.exit_link]]
    gone = {int(r) for r in np.nonzero((np.abs(a2 % tiles_x - b2 % tiles_x) > 1)
                                       | (np.abs(a2 // tiles_x - b2 // tiles_x) > 1))[0]}
    assert gone and all(k in (tr2.entry_link[r], tr2.exit_link[r]) for r in gone)
    with pytest.warns(detour.DetourExportWarning, match=r"left out.*tile_size") as rec:
        path = detour.write_detour(moved, tmp_path / "nav.detour.bin")
    assert f"{len(gone)} climbing way(s)" in str(rec[0].message)
    kept = {u - detour.CLIMB_USER_ID for _, u, _, _ in _climb_cons(detour.read_detour(path))}
    assert kept == set(range(tr2.cost.shape[0])) - gone and kept
