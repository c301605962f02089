"""Multi-tile Detour export of a tiled bake (core/tiles.py): RecastDemo's MSET with one
DNAV per tile, loaded by the real Detour (@recast-navigation/core, tests/export/node),
which must find paths across tile edges; reference bits and links checked in Python."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.kinds import GENERATED_LINK_KINDS
from blender_navjump.core.query import AgentFilter, find_paths
from blender_navjump.export import detour

FLOOR = 0.012


def y_up(p):
    p = np.asarray(p, float).reshape(-1, 3)
    return np.stack([p[:, 0], p[:, 2], -p[:, 1]], axis=1)


def level(links: bool = False):
    """An L of floors (4 x 3 tiles of 32 cells) with a box across a tile edge that only a
    jump up reaches (climb 0.3 m, box 0.8 m)."""
    from scenes import Scene

    s = Scene().floor(0, 0, 30, 8, FLOOR).floor(0, 8, 8, 20, FLOOR)
    s.box(12, 2.5, -0.5, 20, 5.5, 0.8 + FLOOR)
    v, t = s.arrays()
    st = BakeSettings(cell_size=0.25, cell_height=0.05, agent_radius=0.3,
                      agent_max_climb=0.3, tile_size=32, links_enabled=links)
    return bake(v, t, st), v, t


def test_one_dnav_per_tile_and_reference_bits(tmp_path):
    nm, _v, _t = level()
    path = detour.write_detour(nm, tmp_path / "level.detour.bin")
    data = path.read_bytes()
    _magic, version, n_tiles = struct.unpack_from("<iii", data)
    n_used = len(np.unique(nm.polygon_tile))
    assert (version, n_tiles) == (1, n_used) and n_used >= 6
    parsed = detour.read_detour(path)
    tx, ty = nm.stats["tile_grid"]["tiles"]
    tile_bits, poly_bits = detour.ref_bits(tx * ty, max(
        int(t.header["polyCount"]) for t in parsed.tiles))
    assert int(parsed.params["maxTiles"]) == 1 << tile_bits >= tx * ty
    assert sum(int(t.header["polyCount"]) for t in parsed.tiles) == nm.polygon_count
    for i, ref in enumerate(parsed.tile_refs):
        assert ref >> (poly_bits + tile_bits) == 1  # salt 1
        assert (ref >> poly_bits) & ((1 << tile_bits) - 1) == i
    # every polygon edge that crosses to another tile is a portal (DT_EXT_LINK | side)
    portals = sum(int(((t.polys["neis"] & detour.DT_EXT_LINK) != 0).sum())
                  for t in parsed.tiles)
    p, i = np.nonzero(nm.neighbours >= 0)
    crossing = int((nm.polygon_tile[p] != nm.polygon_tile[nm.neighbours[p, i]]).sum())
    assert portals == crossing > 0


def test_reference_bits_too_many_is_refused_naming_tile_size():
    # the message names the limit (22 bits of tile and polygon index), the counts and
    # the setting to change
    with pytest.raises(ValueError, match=r"4096 tiles \(12 bits\) and up to 2048 polygons per "
                                         r"tile \(11 bits\) exceed the 22 bits .*tile_size"):
        detour.ref_bits(1 << 12, 1 << 11)
    assert detour.ref_bits(1 << 11, 1 << 11) == (11, 11)


def test_detour_finds_paths_across_tile_edges(node_client, tmp_path):
    nm, _v, _t = level(links=True)
    assert nm.link_count > 0
    f = detour.write_detour(nm, tmp_path / "level.detour.bin")
    pairs = [((1.0, 1.0, FLOOR), (29.0, 2.0, FLOOR)),   # along the long arm, 4 tiles
             ((1.0, 19.0, FLOOR), (28.0, 6.0, FLOOR)),  # round the corner of the L
             ((2.0, 2.0, FLOOR), (16.5, 4.0, 0.8 + FLOOR))]  # up onto the box: a link
    request = {"navmeshes": [{"file": str(f), "kind": "mset"}], "dump": False,
               "queries": [{"start": y_up(s)[0].tolist(), "end": y_up(e)[0].tolist()}
                           for s, e in pairs],
               "points": [], "pointHalfExtents": [0.05, 2.0, 0.05]}
    res = node_client.request("navjump_detour.mjs", "query", request, tmp_path)["results"][0]
    # Detour's default filter weighs every area 1: a link costs its length. Ours the same
    # (the baked links carry their kinds' cost multipliers: scaled back to 1), else ours
    # walks round the box where Detour hops over it.
    flat = AgentFilter(link_cost_scale=tuple(1.0 / float(nm.settings[f"cost_{k}"])
                                             for k in GENERATED_LINK_KINDS))
    ours = find_paths(nm, np.array([s for s, _ in pairs]), np.array([e for _, e in pairs]),
                      flat)
    assert ours.found.all()
    assert ours.path(2).corridor_links.max() >= 0  # the last path takes a link
    tile_of = nm.polygon_tile
    for k, q in enumerate(res["queries"]):
        assert q["found"] and not q["partial"], (k, q)
        pts = np.asarray(q["straight"], float)
        length = float(np.linalg.norm(np.diff(pts, axis=0), axis=1).sum())
        # Detour's path across the tiles is about as long as ours (its A* runs over the
        # polygon centres and the tile-edge strips add polygons: measured up to 4% longer)
        assert length == pytest.approx(float(ours.length[k]), rel=0.05), k
        path = ours.path(k)
        assert len(set(tile_of[path.corridor].tolist())) >= 2  # crosses tile edges
