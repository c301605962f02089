"""Tiled bakes (core/tiles.py): the same navmesh as a solo bake within the issue's bands
(walkable area 1%, paths 2%, link counts per kind 5%), tiles that meet exactly on their
edges, one merged NavMesh every front end reads, progress and cancel per tile."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from scenes import Scene

from blender_navjump.core import BakeSettings, NavMesh, SettingsError, bake
from blender_navjump.core.navmesh_check import check_navmesh
from blender_navjump.core.objio import read_obj
from blender_navjump.core.pipeline import BakeCancelled
from blender_navjump.core.query import find_paths, random_navmesh_points
from blender_navjump.core.settings import min_tile_size, tile_border_cells

FLOOR = 0.012  # floor tops off voxel boundaries (see test_links.py)


def terraces(n=5, size=4.0, gap=1.0, seed=3) -> Scene:
    """n x n platforms of different heights with gaps between them (drops, jumps across
    and jumps up everywhere), on a ground floor, crossing several tiles."""
    rng = np.random.default_rng(seed)
    s = Scene().floor(-1.0, -1.0, n * (size + gap) + 1.0, n * (size + gap) + 1.0, FLOOR)
    for i in range(n):
        for j in range(n):
            h = float(rng.choice([0.5, 1.0, 1.5, 2.5])) + FLOOR
            x0, y0 = i * (size + gap), j * (size + gap)
            s.box(x0, y0, -0.5, x0 + size, y0 + size, h)
    # a ramp and stairs so that tile edges also cross slopes and steps
    s.ramp(2.0, -0.9, 12.0, -0.1, FLOOR, 10.0)
    s.stairs(14.0, 25.5, 27.0, FLOOR, 0.2, 0.4, 8)
    return s


def tile_line_edges(nm: NavMesh, bmin, settings: BakeSettings):
    """(polygon, slot, on a tile line) for every polygon edge, in level cells."""
    g = np.round((nm.vertices[:, :2] - bmin[:2]) / settings.cell_size).astype(np.int64)
    n = (nm.polygons >= 0).sum(axis=1)
    out = []
    for p in range(nm.polygon_count):
        for i in range(n[p]):
            a, b = g[nm.polygons[p, i]], g[nm.polygons[p, (i + 1) % n[p]]]
            on = ((a[0] == b[0] and a[0] % settings.tile_size == 0)
                  or (a[1] == b[1] and a[1] % settings.tile_size == 0))
            out.append((p, i, on))
    return out


def unmatched_tile_edges(nm: NavMesh, bmin, settings: BakeSettings) -> list[str]:
    """Tile-edge polygon edges without a neighbour although a polygon of another tile lies
    just across them at the same height: a crack between tiles."""
    n = (nm.polygons >= 0).sum(axis=1)
    bad = []
    for p, i, on in tile_line_edges(nm, bmin, settings):
        if not on or nm.neighbours[p, i] >= 0:
            continue
        a = nm.vertices[nm.polygons[p, i]]
        b = nm.vertices[nm.polygons[p, (i + 1) % n[p]]]
        d = b - a
        out = np.array([d[1], -d[0], 0.0]) / np.hypot(d[0], d[1])  # right of a CCW edge
        q = 0.5 * (a + b) + 0.05 * out
        for o in np.nonzero(nm.polygon_tile != nm.polygon_tile[p])[0]:
            vv = nm.vertices[nm.polygons[o, :n[o]]]
            e = np.roll(vv, -1, axis=0) - vv
            cross = e[:, 0] * (q[1] - vv[:, 1]) - e[:, 1] * (q[0] - vv[:, 0])
            if (cross >= -1e-9).all() and abs(vv[:, 2].mean() - q[2]) < settings.agent_max_climb:
                bad.append(f"polygon {p} edge {i} ({a[:2]} - {b[:2]}) faces polygon {o} "
                           f"of tile {nm.polygon_tile[o]} without a neighbour")
    return bad


def path_lengths(solo: NavMesh, tiled: NavMesh, n=60, seed=1):
    pts = random_navmesh_points(solo, 2 * n, rng=seed)
    a = find_paths(solo, pts[:n], pts[n:], on_error="status")
    b = find_paths(tiled, pts[:n], pts[n:], on_error="status")
    both = a.found & b.found
    return a.length[both], b.length[both], a.found, b.found


def assert_paths_close(ls, lt):
    """Paths within 2%: their total and their median (the polygon corridor A* picks can
    differ where tile edges cut polygons, so a few paths bend differently; the largest
    difference measured is ~10%, docs/tiles.md)."""
    rel = np.abs(lt - ls) / np.maximum(ls, 1e-9)
    assert abs(lt.sum() - ls.sum()) <= 0.02 * ls.sum(), (lt.sum(), ls.sum())
    assert np.median(rel) <= 0.02, np.sort(rel)[-10:]


def plan_area_by_stance(nm: NavMesh) -> np.ndarray:
    """Walkable area (m2) per stance, as the ground the agent stands on: the surface
    triangles projected on the floor plane. (The 3D area also counts the slanted detail
    triangles that bridge a climbable step inside a polygon, and how wide those are depends
    on where polygon vertices land on the step; a tile edge puts vertices there, see
    docs/tiles.md.)"""
    start, tris = nm.surface_triangles()
    e1 = tris[:, 1, :2] - tris[:, 0, :2]
    e2 = tris[:, 2, :2] - tris[:, 0, :2]
    tri_area = 0.5 * np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
    per_poly = np.add.reduceat(tri_area, start[:-1]) * (np.diff(start) > 0)
    return np.bincount(nm.polygon_stance, per_poly, minlength=3)


def assert_like_solo(solo: NavMesh, tiled: NavMesh, v, settings: BakeSettings):
    check_navmesh(tiled, "tiled bake")
    assert tiled.tiled and not solo.tiled
    assert tiled.polygon_tile.shape == (tiled.polygon_count,)
    by_stance_s, by_stance_t = plan_area_by_stance(solo), plan_area_by_stance(tiled)
    area_s, area_t = by_stance_s.sum(), by_stance_t.sum()
    assert abs(area_t - area_s) <= 0.01 * area_s, (area_s, area_t)
    for stance, (a_s, a_t) in enumerate(zip(by_stance_s, by_stance_t, strict=True)):
        assert abs(a_t - a_s) <= 0.01 * area_s, (stance, a_s, a_t)
    # the 3D surface (walkable floor plus the slopes bridging climbable steps) stays close
    assert abs(tiled.surface_area() - solo.surface_area()) <= 0.05 * solo.surface_area()
    ls, lt, fs, ft = path_lengths(solo, tiled)
    # the same pairs connect (a tile edge that cut the mesh would break paths)
    assert (fs == ft).mean() >= 0.95, (fs.sum(), ft.sum())
    assert ls.size >= 10
    assert_paths_close(ls, lt)
    bad = unmatched_tile_edges(tiled, v.min(axis=0), settings)
    assert bad == [], "\n".join(bad[:10])


# ------------------------------------------------------------------------- settings
def test_tile_size_default_is_solo_and_settable_from_the_command_line():
    assert BakeSettings().tile_size == 0
    assert BakeSettings.parse_value("tile_size", "64") == 64
    assert BakeSettings(tile_size=64).validate().tile_size == 64


def test_tile_too_small_for_the_agent_is_refused_with_the_minimum():
    # radius 10 cells, border 10 + 3 + region_min_size 8
    s = BakeSettings(agent_radius=3.0, cell_size=0.3)
    least = min_tile_size(s)
    assert least == 2 * tile_border_cells(s) == 42
    with pytest.raises(SettingsError, match=r"tile_size: 41 cells is too small .* at least "
                                            r"42 cells"):
        s.with_values(tile_size=least - 1).validate()
    s.with_values(tile_size=least).validate()
    small = BakeSettings(agent_radius=0.0, region_min_size=0)
    assert min_tile_size(small) == 16
    with pytest.raises(SettingsError, match="tile_size: 8 cells .* at least 16"):
        small.with_values(tile_size=8).validate()
    with pytest.raises(SettingsError, match="tile_size"):
        BakeSettings(tile_size=-1).validate()


# ---------------------------------------------------------------------- equivalence
def test_terraces_tiled_match_solo_and_meet_on_tile_edges():
    v, t = terraces().arrays()
    s = BakeSettings(cell_size=0.2, cell_height=0.05)
    solo = bake(v, t, s)
    tiled = bake(v, t, s.with_values(tile_size=40))
    assert tiled.stats["tiles"] == [4, 4]
    assert len(set(tiled.polygon_tile.tolist())) > 9
    assert_like_solo(solo, tiled, v, s.with_values(tile_size=40))
    # polygons join across tile edges: the neighbour graph crosses tiles
    p, i = np.nonzero(tiled.neighbours >= 0)
    assert (tiled.polygon_tile[p] != tiled.polygon_tile[tiled.neighbours[p, i]]).sum() > 50


def test_multi_stance_tiled_match_solo():
    s = Scene().floor(0, 0, 20, 20, FLOOR)
    s.ceiling(3, 3, 17, 9, 1.5 + FLOOR)  # crouch zone across tile edges
    s.ceiling(5, 12, 15, 17, 0.9 + FLOOR)  # prone zone
    v, t = s.arrays()
    # climb 0.4 m: the top of the 0.9 m ceiling stays apart from the floor
    st = BakeSettings(cell_size=0.2, cell_height=0.05, agent_radius=0.3, agent_max_climb=0.4,
                      multi_stance=True)
    solo = bake(v, t, st)
    tiled = bake(v, t, st.with_values(tile_size=32))
    assert tiled.stats["polygons_by_stance"]["crouch"] > 0
    assert tiled.stats["polygons_by_stance"]["prone"] > 0
    assert_like_solo(solo, tiled, v, st.with_values(tile_size=32))
    # a polygon never mixes stances and keeps the clearance it was tagged by
    assert set(np.unique(tiled.polygon_stance)) == {0, 1, 2}


@pytest.mark.parametrize("name,tile", [("dungeon.obj", 48), ("nav_test.obj", 64)])
def test_recast_samples_tiled_match_solo(recast_data, name, tile):
    v, t = read_obj(str(recast_data / name), up="y")
    s = BakeSettings()
    solo = bake(v, t, s)
    tiled = bake(v, t, s.with_values(tile_size=tile))
    assert tiled.stats["tiles"][0] * tiled.stats["tiles"][1] >= 4
    assert_like_solo(solo, tiled, v, s.with_values(tile_size=tile))


@hsettings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tile=st.integers(28, 60), dx=st.floats(0.0, 3.0), dy=st.floats(0.0, 3.0))
def test_tiles_meet_at_any_size_and_offset(tile, dx, dy):
    """Walkable area against solo is checked on the other levels; here: no cracks."""
    v, t = terraces(n=3, seed=7).arrays()
    v = v + np.array([dx, dy, 0.0])
    s = BakeSettings(cell_size=0.2, cell_height=0.05, tile_size=tile)
    tiled = bake(v, t, s)
    check_navmesh(tiled)
    # no crack: the tiles' polygons are joined wherever they face each other
    assert unmatched_tile_edges(tiled, v.min(axis=0), s) == []
    p, i = np.nonzero(tiled.neighbours >= 0)
    assert (tiled.polygon_tile[p] != tiled.polygon_tile[tiled.neighbours[p, i]]).any()


def test_links_tiled_match_solo_per_kind():
    v, t = terraces(n=5, seed=3).arrays()
    s = BakeSettings(cell_size=0.2, cell_height=0.05, links_enabled=True)
    solo = bake(v, t, s)
    tiled = bake(v, t, s.with_values(tile_size=40))
    check_navmesh(tiled)
    ks, kt = solo.stats["links"], tiled.stats["links"]
    for kind in ("drop", "jump_across", "jump_up"):
        assert ks[kind] >= 10, ks
        assert abs(kt[kind] - ks[kind]) <= 0.05 * ks[kind], (kind, ks, kt)
    # links cross tile edges: some start and end in different tiles
    assert (tiled.polygon_tile[tiled.link_start_poly]
            != tiled.polygon_tile[tiled.link_end_poly]).any()
    # paths with links agree with the solo bake's
    ls, lt, _fs, _ft = path_lengths(solo, tiled)
    assert_paths_close(ls, lt)


@pytest.fixture(scope="module")
def terraces_links_solo():
    v, t = terraces(n=5, seed=3).arrays()
    s = BakeSettings(cell_size=0.2, cell_height=0.05, links_enabled=True)
    return v, t, s, bake(v, t, s)


@pytest.mark.parametrize("tile", [28, 36, 44, 48, 56, 64])
def test_links_tiled_match_solo_at_other_tile_sizes(terraces_links_solo, tile):
    """The solo bake's link counts wherever the tile edges fall. Each cause found made some
    of these sizes differ by a link: a landing height read on the detail mesh's ramp over
    a climbable step (its shape follows the polygons); a bidirectional link kept from
    both sides by two tiles; a ledge corner cut off by the outline of a one-cell strip
    region; border samples moved by a collinear cut of a border edge."""
    v, t, s, solo = terraces_links_solo
    tiled = bake(v, t, s.with_values(tile_size=tile))
    assert {k: tiled.stats["links"][k] for k in ("drop", "jump_across", "jump_up")} \
        == {k: solo.stats["links"][k] for k in ("drop", "jump_across", "jump_up")}


# --------------------------------------------------------------- mesh, progress, cancel
def test_tiled_navmesh_saves_and_loads(tmp_path):
    v, t = terraces(n=2).arrays()
    nm = bake(v, t, BakeSettings(cell_size=0.2, cell_height=0.05, tile_size=28))
    nm.save(tmp_path / "tiled.npz")
    back = NavMesh.load(tmp_path / "tiled.npz")
    assert back.equals(nm) and back.tiled
    bad = NavMesh(**{**{f: getattr(nm, f) for f in nm.array_fields()},
                     "polygon_tile": nm.polygon_tile[:-1]})
    with pytest.raises(ValueError, match="polygon_tile"):
        check_navmesh(bad)


def test_progress_per_tile_and_cancel_between_tiles():
    v, t = terraces(n=2).arrays()
    s = BakeSettings(cell_size=0.2, cell_height=0.05, tile_size=28)
    seen = []
    bake(v, t, s, progress=lambda stage, f: seen.append((stage, f)))
    tiles = sorted({stage.split(":")[0] for stage, _f in seen if stage.startswith("tile ")})
    n = int(tiles[0].split("/")[1])
    assert n >= 4 and len(tiles) == n
    fractions = [f for _s, f in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0

    calls = []

    def cancel_at_second_tile(stage, f):
        calls.append(stage)
        if stage.startswith("tile 2/"):
            raise BakeCancelled()

    with pytest.raises(BakeCancelled):
        bake(v, t, s, progress=cancel_at_second_tile)
    assert not any(c.startswith("tile 3/") for c in calls)


def test_a_scene_with_one_object_spanning_every_tile():
    # one huge floor of two triangles is binned into every tile
    v, t = Scene().floor(0, 0, 30, 30, FLOOR).arrays()
    s = BakeSettings(cell_size=0.3, tile_size=26)
    tiled = bake(v, t, s)
    solo = bake(v, t, s.with_values(tile_size=0))
    tx, ty = tiled.stats["tiles"]
    assert tx == ty == 4  # 101 cells in tiles of 26
    assert tiled.stats["tiles_baked"] == tx * ty
    assert abs(tiled.surface_area() - solo.surface_area()) <= 0.01 * solo.surface_area()
    assert unmatched_tile_edges(tiled, v.min(axis=0), s) == []


# --------------------------------------------------------------------- incremental
def crate_scene(crate_at):
    """A terraced level with one crate standing on the ground at ``crate_at`` (x, y)."""
    s = terraces(n=3, seed=7)
    x, y = crate_at
    s.box(x, y, FLOOR, x + 1.2, y + 1.2, 1.0 + FLOOR)
    v, t = s.arrays()
    n_crate = 12  # a box is 12 triangles, the last ones added
    crate = np.unique(t[-n_crate:])
    return v, t, (v[crate].min(axis=0), v[crate].max(axis=0))


@pytest.mark.parametrize("links", [False, True])
def test_incremental_rebake_equals_a_full_bake(links):
    """Moving one crate re-bakes only the tiles its old and new bounds touch (and the
    links of the tiles reaching into them); the merged navmesh equals a bake of every tile,
    array for array."""
    from blender_navjump.core.tiles import TileCache

    s = BakeSettings(cell_size=0.2, cell_height=0.05, tile_size=28, links_enabled=links)
    v0, t0, box0 = crate_scene((14.3, 3.0))
    v1, t1, box1 = crate_scene((14.5, 5.0))
    # the level's bounds do not move with the crate (the tile grid stays)
    assert np.allclose(v0.min(axis=0), v1.min(axis=0))
    assert np.allclose(v0.max(axis=0), v1.max(axis=0))
    cache = TileCache()
    first = bake(v0, t0, s, tile_cache=cache)
    n_tiles = first.stats["tiles"][0] * first.stats["tiles"][1]
    assert first.stats["tiles_rebaked"] == n_tiles and cache.key is not None
    seen = []
    inc = bake(v1, t1, s, tile_cache=cache, changed=[box0, box1],
               progress=lambda stage, f: seen.append(stage))
    full = bake(v1, t1, s)
    assert 0 < len(cache.rebaked) < n_tiles, cache.rebaked
    assert inc.stats["tiles_rebaked"] == len(cache.rebaked)
    # progress counts the re-baked tiles only
    assert any(st_.startswith(f"tile 1/{len(cache.rebaked)}:") for st_ in seen)
    assert not inc.equals(first)  # the crate moved: the mesh changed
    assert inc.equals(full)
    for key in ("spans", "regions", "contours", "polygons", "tiles_baked"):
        assert inc.stats[key] == full.stats[key], key
    if links:
        assert 0 < len(cache.relinked) < n_tiles
        assert inc.link_count > 0 and inc.stats["links"] == full.stats["links"]
    # moving it back gives the first bake again
    back = bake(v0, t0, s, tile_cache=cache, changed=[box1, box0])
    assert back.equals(first)


def test_incremental_rebake_after_a_cancel_or_a_settings_change_bakes_every_tile():
    from blender_navjump.core.tiles import TileCache

    s = BakeSettings(cell_size=0.2, cell_height=0.05, tile_size=28)
    v0, t0, box0 = crate_scene((14.3, 3.0))
    v1, t1, box1 = crate_scene((14.5, 5.0))
    cache = TileCache()
    bake(v0, t0, s, tile_cache=cache)

    def cancel_at_second_tile(stage, f):
        if stage.startswith("tile 2/"):
            raise BakeCancelled()

    with pytest.raises(BakeCancelled):
        bake(v1, t1, s, tile_cache=cache, changed=[box0, box1],
             progress=cancel_at_second_tile)
    assert cache.key is None  # half updated: not used as it is
    again = bake(v1, t1, s, tile_cache=cache, changed=[box0, box1])
    assert again.stats["tiles_rebaked"] == again.stats["tiles"][0] * again.stats["tiles"][1]
    assert again.equals(bake(v1, t1, s))
    other = s.with_values(agent_radius=0.4)
    changed = bake(v1, t1, other, tile_cache=cache, changed=[box1])
    assert changed.stats["tiles_rebaked"] == changed.stats["tiles"][0] * changed.stats["tiles"][1]


def test_tiled_navmesh_json_carries_the_tile_grid(tmp_path):
    """The JSON export writes the tile grid and each polygon's tile; reading it back gives
    the same arrays (polygon_tile included) and the grid the multi-tile Detour export
    places its tiles by."""
    import json

    from blender_navjump.export.navjump_json import read_json, write_json

    v, t = terraces(n=2).arrays()
    nm = bake(v, t, BakeSettings(cell_size=0.2, cell_height=0.05, tile_size=28))
    path = tmp_path / "tiled.json"
    write_json(nm, path)
    doc = json.loads(path.read_text())
    tiles = doc["tiles"]
    assert tiles["count"] == nm.stats["tiles"] and tiles["tile_size"] == 28
    assert tiles["cell_size"] == 0.2
    assert tiles["origin"] == pytest.approx(v.min(axis=0)[:2].tolist())
    assert tiles["polygon_tile"] == nm.polygon_tile.tolist()
    back = read_json(path)
    assert back.tiled and back.equals(nm)
    assert back.stats["tile_grid"]["tiles"] == nm.stats["tiles"]
    # a solo bake has no "tiles"; a wrong-length polygon_tile is refused naming the key
    solo = bake(v, t, BakeSettings(cell_size=0.2, cell_height=0.05))
    write_json(solo, tmp_path / "solo.json")
    assert "tiles" not in json.loads((tmp_path / "solo.json").read_text())
    tiles["polygon_tile"] = tiles["polygon_tile"][:-1]
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="tiles.polygon_tile"):
        read_json(path)


def test_tiles_bake_on_threads_by_default_when_there_are_two_workers(monkeypatch):
    """The rule of ``tiles.tile_parallel_mode``: threads with two workers or more and two
    tiles or more, serial with one worker or one tile; the environment variable wins."""
    from blender_navjump.core.tiles import tile_parallel_mode

    monkeypatch.delenv("NAVJUMP_TILE_PARALLEL", raising=False)
    monkeypatch.setenv("NAVJUMP_THREADS", "2")
    assert tile_parallel_mode(4) == "threads" and tile_parallel_mode(1) == "serial"
    monkeypatch.setenv("NAVJUMP_THREADS", "1")
    assert tile_parallel_mode(4) == "serial"
    monkeypatch.setenv("NAVJUMP_TILE_PARALLEL", "processes")
    assert tile_parallel_mode(4) == "processes"


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_parallel_tiles_give_the_serial_result_and_cancel_between_tiles(mode, monkeypatch):
    """NAVJUMP_TILE_PARALLEL bakes the tiles on worker threads or forked processes: the
    same navmesh as one after the other, progress per tile, a cancel stops the pool."""
    v, t = terraces(n=2).arrays()
    s = BakeSettings(cell_size=0.2, cell_height=0.05, tile_size=28)
    monkeypatch.setenv("NAVJUMP_TILE_PARALLEL", "serial")
    serial = bake(v, t, s)
    assert serial.stats["tiles_parallel"] == "serial"
    monkeypatch.setenv("NAVJUMP_TILE_PARALLEL", mode)
    seen = []
    par = bake(v, t, s, progress=lambda stage, f: seen.append(stage))
    assert par.stats["tiles_parallel"] == mode
    assert par.equals(serial)
    n = serial.stats["tiles"][0] * serial.stats["tiles"][1]
    assert [st_ for st_ in seen if st_.endswith(": baking")] == [
        f"tile {i + 1}/{n}: baking" for i in range(n)]

    def cancel_at_second_tile(stage, f):
        if stage.startswith("tile 2/"):
            raise BakeCancelled()

    with pytest.raises(BakeCancelled):
        bake(v, t, s, progress=cancel_at_second_tile)


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_validation_and_bins_of_an_edit_equal_those_from_scratch(data):
    """What a bake with a tile cache validates and bins again after vertices moved (only
    the moved vertices and the triangles using them) equals validating and binning
    everything: bounds (also when the vertex on a bound moves inward, or every one on it
    does), degenerate triangles dropped, each tile's triangles in order; bad moves raise
    the full check's error."""
    from blender_navjump.core.pipeline import (
        DEGENERATE_RATIO,
        BakeInputError,
        validate_geometry,
    )
    from blender_navjump.core.tile_cache import TileCache
    from blender_navjump.core.tiles import (
        FullCheck,
        _tile_bins,
        bin_triangles,
        bins_key,
        tile_grid,
        validate_cached,
    )

    full = FullCheck(validate_geometry, DEGENERATE_RATIO)

    rng = np.random.default_rng(data.draw(st.integers(0, 2**31), label="seed"))
    n_v = data.draw(st.integers(4, 40), label="vertices")
    v = rng.uniform(0.0, 20.0, (n_v, 3))
    n_t = data.draw(st.integers(2, 60), label="triangles")
    t = np.array([rng.choice(n_v, 3, replace=False) for _ in range(n_t)], np.int32)
    walk = rng.random(t.shape[0]) < 0.8
    s = BakeSettings(cell_size=0.3, tile_size=16)
    cache = TileCache()
    for step in range(data.draw(st.integers(1, 4), label="edits")):
        if step:
            v = v.copy()
            moved = rng.choice(n_v, size=data.draw(st.integers(1, n_v), label="moved"),
                               replace=False)
            how = data.draw(st.sampled_from(["shift", "to_bound", "collapse", "nan", "far"]))
            if how == "shift":
                v[moved] += rng.normal(0.0, 3.0, (moved.size, 3))
            elif how == "to_bound":  # onto the current bounds, or the extremes inward
                v[moved] = np.where(rng.random((moved.size, 3)) < 0.5, v.min(axis=0),
                                    v.max(axis=0))
            elif how == "collapse":  # triangles become degenerate
                v[moved] = v[moved[0]]
            elif how == "nan":
                v[moved[0], 1] = np.nan
            else:
                v[moved[0], 0] = 1.0e13  # beyond the coordinates a bake accepts
        try:
            want = validate_geometry(v, t, walk)
        except BakeInputError as exc:
            with pytest.raises(BakeInputError) as got_exc:
                validate_cached(v, t, walk, cache, full)
            assert str(got_exc.value) == str(exc)
            continue
        got = validate_cached(v, t, walk, cache, full)
        for a, b in zip(got, want, strict=True):  # (an unused vertex may be NaN)
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), strict=True)
        grid = tile_grid(s, want[4][0], want[4][1])
        vv, tt = want[0], want[1]
        every = bin_triangles(grid, vv, tt, grid.border)
        todo = sorted(rng.choice(grid.tile_count, size=min(2, grid.tile_count),
                                 replace=False).tolist())
        kept = cache.bins is not None and cache.bins[1] == cache.inputs.generation - 1 \
            and cache.bins[0] == bins_key(grid, tt.shape[0])
        if not kept:  # a bake bins every tile when there are no bins to update
            todo = list(range(grid.tile_count))
        start, items = _tile_bins(cache, grid, vv, tt, todo)
        # without degenerate triangles the bins are kept and updated, not made again
        assert (cache.bins is not None) == (want[3] == 0)
        if cache.bins is not None:
            assert cache.bins[1] == cache.inputs.generation
        for k in todo:
            assert np.array_equal(items[start[k]:start[k + 1]],
                                  every[1][every[0][k]:every[0][k + 1]]), (step, k)
