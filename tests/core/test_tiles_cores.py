"""Shared tile cores (core/tiles.py ``SharedCores``): a tile's compact heightfield
assembled from the cores of its own tile and its neighbours (each rasterised, filtered and
compacted once) is, array for array, the one of rasterising the tile's whole grid in the
level's frame (``Raster``), filtering and compacting it."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from scenes import Scene

from blender_navjump.core import BakeSettings
from blender_navjump.core import tiles as T
from blender_navjump.core.compact import build_compact_heightfield
from blender_navjump.core.filters import filter_heightfield
from blender_navjump.core.geometry import used_vertex_bounds


def terraces(n=3, size=4.0, gap=1.0, seed=3) -> Scene:
    """Platforms of different heights on a floor, a ramp and stairs (tile edges cross
    boxes, slopes and steps)."""
    rng = np.random.default_rng(seed)
    s = Scene().floor(-1.0, -1.0, n * (size + gap) + 1.0, n * (size + gap) + 1.0, 0.012)
    for i in range(n):
        for j in range(n):
            h = float(rng.choice([0.5, 1.0, 1.5, 2.5])) + 0.012
            s.box(i * (size + gap), j * (size + gap), -0.5, i * (size + gap) + size,
                  j * (size + gap) + size, h)
    s.ramp(2.0, -0.9, 12.0, -0.1, 0.012, 10.0)
    s.stairs(8.0, 13.5, 15.0, 0.012, 0.2, 0.4, 8)
    return s


def _tile_heightfields(v, t, walk, settings):
    """Per tile with triangles: (its compact heightfield and solid span count from its
    whole grid, the same assembled from the shared cores)."""
    bmin, bmax, _finite = used_vertex_bounds(v, t)
    grid = T.tile_grid(settings, bmin, bmax)
    start, items = T.bin_triangles(grid, v, t, grid.border)
    raster = T.Raster(grid, grid.border)
    users = [k for k in range(grid.tile_count) if start[k + 1] > start[k]]
    cores = T.SharedCores(grid, raster, v, t, walk, users, settings)
    out = []
    for k in users:
        ids = items[start[k]:start[k + 1]]
        cfg = T.tile_config(settings, grid, k, grid.border, int(ids.size))
        hf = raster.rasterize(v, np.ascontiguousarray(t[ids]), np.ascontiguousarray(walk[ids]),
                              cfg)
        filter_heightfield(hf, cfg.walkable_height, cfg.walkable_climb,
                           settings.filter_low_hanging_obstacles, settings.filter_ledge_spans,
                           settings.filter_low_height_spans)
        whole = (build_compact_heightfield(hf, cfg.walkable_height, cfg.walkable_climb),
                 hf.span_min.size)
        out.append((k, whole, cores.tile_compact(k, cfg)))
    return grid, cores, out


def _assert_same(whole, shared):
    (a_chf, a_spans), (b_chf, b_spans) = whole, shared
    assert a_spans == b_spans
    assert (b_chf.width, b_chf.height) == (a_chf.width, a_chf.height)
    for name in ("cell_index", "cell_count", "span_y", "span_h", "span_area", "span_con",
                 "span_x", "span_cy"):
        a, b = getattr(a_chf, name), getattr(b_chf, name)
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b), name


@hsettings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tile=st.integers(24, 60), dx=st.floats(0.0, 3.0), dy=st.floats(0.0, 3.0),
       obstacle=st.booleans(), filters=st.sampled_from(
           [(True, True, True), (False, False, False), (True, False, True),
            (False, True, False)]))
def test_assembled_tile_heightfields_equal_whole_rasterisation(tile, dx, dy, obstacle,
                                                               filters):
    """At any tile size and offset (tile edges through boxes, slopes and steps), with
    obstacle triangles and any filters: the same spans and links, the same order; and
    every core is dropped once its last tile has its grid."""
    v, t = terraces(n=3).arrays()
    v = v + np.array([dx, dy, 0.0])
    walk = np.ones(t.shape[0], np.bool_)
    if obstacle:
        walk[::7] = False
    s = BakeSettings(cell_size=0.2, cell_height=0.05, tile_size=tile,
                     filter_low_hanging_obstacles=filters[0], filter_ledge_spans=filters[1],
                     filter_low_height_spans=filters[2])
    _grid, cores, pairs = _tile_heightfields(v, t.astype(np.int32), walk, s)
    assert len(pairs) > 1
    for _k, whole, shared in pairs:
        _assert_same(whole, shared)
    assert cores.entries == {} and (cores.refs == 0).all()


def test_a_triangle_across_every_tile_and_the_level_sides():
    """One floor spanning every tile, its edges on the level's bounds (the cores at the
    level's sides reach into the frame's pad)."""
    s = Scene().floor(0.0, 0.0, 20.0, 14.0, 0.0).box(3.0, 3.0, 0.0, 4.0, 11.0, 1.0)
    v, t = s.arrays()
    walk = np.ones(t.shape[0], np.bool_)
    settings = BakeSettings(cell_size=0.2, cell_height=0.05, tile_size=32)
    grid, _cores, pairs = _tile_heightfields(v, t.astype(np.int32), walk, settings)
    assert grid.tiles_x >= 3 and grid.tiles_y >= 2
    for _k, whole, shared in pairs:
        assert whole[1] > 0 and whole[0].span_y.size > 0
        _assert_same(whole, shared)


@hsettings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tile=st.integers(24, 60), dx=st.floats(0.0, 3.0), dy=st.floats(0.0, 3.0),
       partition=st.sampled_from(["watershed", "monotone"]))
def test_tile_regions_on_the_tile_cells_equal_those_of_the_whole_grid(tile, dx, dy,
                                                                      partition):
    """``_tile_regions`` (the grid cropped to the tile box, one kernel) gives the
    regions ``regions.build_regions`` gives on the tile's whole grid after the border cut,
    cut into the same tile-edge strips."""
    import copy

    from blender_navjump.core import regions
    from blender_navjump.core.erode import erode_walkable_area

    v, t = terraces(n=3).arrays()
    v = v + np.array([dx, dy, 0.0])
    t = t.astype(np.int32)
    walk = np.ones(t.shape[0], np.bool_)
    s = BakeSettings(cell_size=0.2, cell_height=0.05, tile_size=tile, region_merge_size=6)
    _grid, _cores, pairs = _tile_heightfields(v, t, walk, s)
    grid = _grid
    compared = 0
    for k, (chf, _spans), _shared in pairs:
        cfg = T.tile_config(s, grid, k, grid.border, 1)
        np.minimum(chf.span_area, 1, out=chf.span_area)
        erode_walkable_area(chf, cfg.walkable_radius)
        box = (grid.border, grid.border, grid.border + grid.size, grid.border + grid.size)
        segments = T._before_regions(
            chf.cell_index, chf.cell_count, chf.span_area, chf.span_con, chf.span_x,
            chf.span_cy, chf.width, chf.height, *box, T.STRIP_CELLS,
            cfg.walkable_radius + 2, cfg.min_region_area)
        whole, cropped = chf, copy.deepcopy(chf)
        regions.build_regions(whole, partition, 0, cfg.merge_region_area)
        want, want_count = T._split_regions(whole.span_reg, whole.span_area, whole.span_con,
                                            whole.span_x, whole.span_cy, *box,
                                            T.STRIP_CELLS, *segments)
        got, got_count = T._tile_regions(
            cropped.cell_index, cropped.cell_count, cropped.span_area, cropped.span_con,
            cropped.span_x, cropped.span_cy, cropped.width, *box, partition == "watershed", 0,
            cfg.merge_region_area, T.STRIP_CELLS, *segments)
        assert got_count == want_count
        assert got.dtype == want.dtype and np.array_equal(got, want)
        compared += int(want_count > 0)
    assert compared > 0
