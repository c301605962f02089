"""Tiled bakes: the level cut into square tiles of ``BakeSettings.tile_size`` cells.

Each tile rasterises only the triangles that touch its grid: the tile plus a border of
``tile_border_cells`` (agent radius in cells + 3, as Recast's Sample_TileMesh, plus
``region_min_size`` so that small islands are judged whole), so the
filters and the erosion see at the tile's edge what a solo bake sees. After erosion the
border is cut away (its spans become unwalkable) and the tile runs the rest of the
pipeline alone; only one tile's grid is alive at a time. A bake of every tile rasterises,
filters and compacts each tile's own cells once (``SharedCores``) and assembles every
tile's grid from its own and its neighbours' cores (the same arrays as doing its whole
grid); the regions are built on the tile's own cells (``_tile_regions``).

Meeting exactly on tile edges. Two tiles share the columns on either side of their edge
(each has the other's first columns in its border), so both know the same spans there.
Every tile cuts a strip ``STRIP_CELLS`` wide along each of its sides into regions of its
own, split wherever the walkable spans of either column of the edge change (their areas:
stance and user area) or break off from the row before (a step beyond climb, a wall) and
at the corner squares; the outline edges on the tile's sides are portals
(``contours.build_contours(tile_box=...)``), so simplification keeps exactly the cut
corners. The two tiles therefore put the same vertices, at the same heights, on their
common edge, and welding those vertices joins the tiles' polygons into one mesh whose
``neighbours`` cross tile edges like any other edge. The result is one NavMesh with a
``polygon_tile`` array: queries, stances, links and every exporter work on it unchanged.

Jump links run per tile over the merged mesh (``build_tile_links``): each tile
rasterises a window reaching ``max_jump_distance`` (and the agent radius) past its edges for
the collision tests, generates links over the polygons that touch the window, and keeps
those whose start segment's middle lies in the tile.

Tiles bake on threads when there are two workers or more (``tile_parallel_mode``), else
one after the other; progress is reported per tile (``"tile 3/100"``) and a
``BakeCancelled`` raised by the progress callback stops the bake between tiles.
"""

from __future__ import annotations

import dataclasses
import json
import math
import threading
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from .compact import _fill_spans, _link_neighbours
from .contours import (
    STRIP_MAX_ERROR,
    _mark_tile_edges,
    _merge_holes,
    _simplify_all,
    _strip_loops_error,
    _walk_outlines,
)
from .detail import _detail_kernel
from .erode import _erode, chamfer_distance
from .filters import _filter_columns
from .geometry import footprint_cell_bound
from .kinds import BUILTIN_AREAS, GENERATED_LINK_KINDS
from .navmesh import AREA_STAND, NavMesh, empty_navmesh
from .navmesh_check import MAX_COORDINATE
from .polymesh import WELD_HEIGHT_TOLERANCE as POLY_WELD_TOLERANCE
from .polymesh import _build_polys, _drop_unused_vertices
from .rasterize import mark_walkable_triangles, rasterize_kernel
from .regions import (
    _area_boundary,
    _box_blur,
    _merge_regions,
    _monotone,
    _order_by_distance,
    _watershed,
)
from .settings import (
    RASTER_BYTES_PER_SPAN,
    BakeSettings,
    MemoryLimit,
    SettingsError,
    check_memory,
    estimate_bake_bytes,
    link_params,
    memory_limit,
    raster_span_bound,
    tile_border_cells,
    voxel_config,
)
from .stage_data import CONTOUR_REG_MASK
from .stances import _classify, _lowering_median
from .tile_cache import TileCache

# Width (cells) of the strip of tile-edge regions along each side of a tile.
STRIP_CELLS = 2
# Region ids a tile may use: the four above are the tile-side portals of the contours.
MAX_TILE_REGIONS = CONTOUR_REG_MASK - 4
# Two tiles' vertices at the same cell corner weld when their heights differ by at most
# this many cell heights (the same tolerance the polygon builder welds with).
WELD_HEIGHT_TOLERANCE = 2
# Triangles are binned into tiles this many at a time (bounds the temporaries).
BIN_CHUNK = 1 << 20


class TileGrid(NamedTuple):
    """How a level is cut into tiles. Cell (x, y) of the level's grid is the world square
    ``bmin + (x, y) * cs``; tile (tx, ty) owns cells ``[tx*size, (tx+1)*size)`` in x."""

    bmin: np.ndarray  # world corner of the level's grid
    bmax: np.ndarray
    cs: float
    size: int  # cells per tile side
    border: int  # cells each tile's grid reaches into its neighbours
    tiles_x: int
    tiles_y: int

    @property
    def tile_count(self) -> int:
        return self.tiles_x * self.tiles_y

    def origin(self, k: int, border: int) -> tuple[int, int]:
        """Level cell of the first cell of tile k's grid with ``border`` cells around."""
        tx, ty = k % self.tiles_x, k // self.tiles_x
        return tx * self.size - border, ty * self.size - border


def tile_grid(settings: BakeSettings, bmin, bmax) -> TileGrid:
    cs = float(settings.cell_size)
    bmin = np.asarray(bmin, np.float64).copy()
    bmax = np.asarray(bmax, np.float64).copy()
    width = int((bmax[0] - bmin[0]) / cs + 0.5) + 1
    height = int((bmax[1] - bmin[1]) / cs + 0.5) + 1
    size = int(settings.tile_size)
    return TileGrid(bmin, bmax, cs, size, tile_border_cells(settings),
                    -(-width // size), -(-height // size))


def tile_config(settings: BakeSettings, grid: TileGrid, k: int, border: int, n_tris: int,
                limit=None, template=None):
    """The VoxelConfig of tile k's grid: the tile plus ``border`` cells on every side,
    aligned with the level's grid and with its vertical range (voxel levels agree).
    ``limit``: the bake's memory limit (``settings.memory_limit``, read once a bake).

    ``template``: ``(cfg, width, height)``, the config of another tile of the bake and the
    grid size ``voxel_config`` derived for it: the tile's config is a copy placed at tile k
    (its ``links`` are the template's) after the same memory check, instead of deriving
    every field again (~70 us a tile)."""
    ox, oy = grid.origin(k, border)
    side = grid.size + 2 * border
    # Python floats: the arithmetic of the float64 arrays, without their per-item cost
    gx, gy, gz = grid.bmin.tolist()
    x0, y0 = gx + ox * grid.cs, gy + oy * grid.cs
    x1, y1 = x0 + side * grid.cs, y0 + side * grid.cs
    bmin = np.array([x0, y0, gz])
    bmax = np.array([x1, y1, float(grid.bmax[2])])
    if template is not None:
        cfg, width, height = template
        cs = float(settings.cell_size)
        if (int((x1 - x0) / cs + 0.5) + 1, int((y1 - y0) / cs + 0.5) + 1) == (width, height):
            need = estimate_bake_bytes(width, height, n_tris)
            if limit is None or need > limit.available:  # the message only when it fails
                check_memory(settings, need,
                             f"a {width:,} x {height:,} cell grid at cell_size {cs:g}", limit)
            placed = object.__new__(type(cfg))  # copy.copy's result, without its detour
            placed.__dict__.update(cfg.__dict__)
            placed.bmin, placed.bmax = bmin, bmax
            return placed
    cfg = voxel_config(settings, bmin, bmax, n_tris, limit)
    return dataclasses.replace(cfg, width=side, height=side)


def tile_config_template(settings: BakeSettings, grid: TileGrid, border: int, limit=None):
    """The ``template`` of :func:`tile_config` for the tiles of one bake (without link
    parameters: the tile stages do not read them)."""
    cfg = tile_config(settings, grid, 0, border, 0, limit)
    width = int((cfg.bmax[0] - cfg.bmin[0]) / cfg.cs + 0.5) + 1
    height = int((cfg.bmax[1] - cfg.bmin[1]) / cfg.cs + 0.5) + 1
    return dataclasses.replace(cfg, links=None), width, height


def bin_triangles(grid: TileGrid, v: np.ndarray, t: np.ndarray, border: int, tiles=None):
    """Triangles per tile, CSR ``(start (tiles+1,), items)``: a triangle is listed for
    every tile whose grid (with ``border``) its bounding box touches.

    ``tiles`` (tile indices): only those tiles are filled, the others left empty (an
    incremental re-bake bakes a few tiles: its pass rejects the triangles far from them
    by their bounding box and keeps no per-triangle temporaries). The lists of the tiles
    filled are the same as a binning of every tile (triangles in ascending order)."""
    if tiles is not None and len(tiles) < grid.tile_count:
        return _bin_some(grid, v, t, border, tiles)
    counts = np.zeros(grid.tile_count, np.int64)
    ranges = []
    for lo in range(0, t.shape[0], BIN_CHUNK):
        t0, t1 = _tile_ranges(v, t[lo:lo + BIN_CHUNK], float(grid.bmin[0]),
                              float(grid.bmin[1]), float(grid.cs), int(border), int(grid.size),
                              int(grid.tiles_x), int(grid.tiles_y))
        ranges.append((t0, t1))
        _count_bins(t0, t1, grid.tiles_x, counts)
    start = np.zeros(grid.tile_count + 1, np.int64)
    np.cumsum(counts, out=start[1:])
    items = np.empty(int(start[-1]), np.int32)
    fill = start[:-1].copy()
    for c, (t0, t1) in enumerate(ranges):
        _fill_bins(t0, t1, grid.tiles_x, c * BIN_CHUNK, fill, items)
    return start, items


@njit(cache=True, nogil=True)
def _tile_ranges(v, t, bx, by, cs, border, size, tiles_x, tiles_y):
    """First and last tile (x, y) whose grid (with ``border``, one cell more) each
    triangle's bounding box touches, clipped to the level."""
    m = t.shape[0]
    t0 = np.empty((m, 2), np.int32)
    t1 = np.empty((m, 2), np.int32)
    for i in range(m):
        a, b, c = t[i, 0], t[i, 1], t[i, 2]
        for axis in range(2):
            o = bx if axis == 0 else by
            last = (tiles_x if axis == 0 else tiles_y) - 1
            lo = min(v[a, axis], v[b, axis], v[c, axis])
            hi = max(v[a, axis], v[b, axis], v[c, axis])
            cmin = np.int64(math.floor((lo - o) / cs)) - border - 1
            cmax = np.int64(math.floor((hi - o) / cs)) + border + 1
            t0[i, axis] = min(max(cmin // size, 0), last)
            t1[i, axis] = min(max(cmax // size, 0), last)
    return t0, t1


def _bin_some(grid: TileGrid, v: np.ndarray, t: np.ndarray, border: int, tiles):
    want = np.zeros(grid.tile_count, np.bool_)
    want[np.asarray(list(tiles), np.int64)] = True
    counts = np.zeros(grid.tile_count, np.int64)
    start = np.zeros(grid.tile_count + 1, np.int64)
    if not want.any():
        return start, np.zeros(0, np.int32)
    kx = np.nonzero(want)[0] % grid.tiles_x
    ky = np.nonzero(want)[0] // grid.tiles_x
    # a conservative world window around the wanted tiles' grids: a triangle whose box
    # misses it cannot reach them (two cells of slack against rounding)
    reach = border + 3
    window = np.array([grid.bmin[0] + (kx.min() * grid.size - reach) * grid.cs,
                       grid.bmin[0] + ((kx.max() + 1) * grid.size + reach) * grid.cs,
                       grid.bmin[1] + (ky.min() * grid.size - reach) * grid.cs,
                       grid.bmin[1] + ((ky.max() + 1) * grid.size + reach) * grid.cs])
    # one pass over every triangle: those near the wanted tiles with their tile ranges
    near = _near_window(v, t, window, float(grid.bmin[0]), float(grid.bmin[1]),
                        float(grid.cs), int(border), int(grid.size), int(grid.tiles_x),
                        int(grid.tiles_y))
    _bin_wanted(near, int(grid.tiles_x), want, counts, counts[:0], np.zeros(0, np.int32))
    np.cumsum(counts, out=start[1:])
    items = np.empty(int(start[-1]), np.int32)
    if items.size:
        _bin_wanted(near, int(grid.tiles_x), want, counts[:0], start[:-1].copy(), items)
    return start, items


@njit(cache=True, nogil=True)
def _near_window(v, t, window, bx, by, cs, border, size, tiles_x, tiles_y):
    """Rows (triangle, tx0, tx1, ty0, ty1), ascending, of the triangles whose bounding box
    meets ``window`` (x0, x1, y0, y1), with the tile ranges of :func:`_tile_ranges`."""
    out = np.empty((1024, 5), np.int64)
    n = 0
    for i in range(t.shape[0]):
        a, b, c = t[i, 0], t[i, 1], t[i, 2]
        lox = min(v[a, 0], v[b, 0], v[c, 0])
        hix = max(v[a, 0], v[b, 0], v[c, 0])
        if hix < window[0] or lox > window[1]:
            continue
        loy = min(v[a, 1], v[b, 1], v[c, 1])
        hiy = max(v[a, 1], v[b, 1], v[c, 1])
        if hiy < window[2] or loy > window[3]:
            continue
        if n == out.shape[0]:
            grown = np.empty((2 * n, 5), np.int64)
            grown[:n] = out
            out = grown
        cx0 = np.int64(math.floor((lox - bx) / cs)) - border - 1
        cx1 = np.int64(math.floor((hix - bx) / cs)) + border + 1
        cy0 = np.int64(math.floor((loy - by) / cs)) - border - 1
        cy1 = np.int64(math.floor((hiy - by) / cs)) + border + 1
        out[n, 0] = i
        out[n, 1] = min(max(cx0 // size, 0), tiles_x - 1)
        out[n, 2] = min(max(cx1 // size, 0), tiles_x - 1)
        out[n, 3] = min(max(cy0 // size, 0), tiles_y - 1)
        out[n, 4] = min(max(cy1 // size, 0), tiles_y - 1)
        n += 1
    return out[:n].copy()


@njit(cache=True, nogil=True)
def _bin_wanted(near, tiles_x, want, counts, fill, items):
    """Count (``counts`` non-empty) or list (``fill``/``items``) the triangles ``near``
    (rows of :func:`_near_window`) of the wanted tiles."""
    counting = counts.shape[0] > 0
    for j in range(near.shape[0]):
        for ty in range(near[j, 3], near[j, 4] + 1):
            for tx in range(near[j, 1], near[j, 2] + 1):
                k = tx + ty * tiles_x
                if want[k]:
                    if counting:
                        counts[k] += 1
                    else:
                        items[fill[k]] = near[j, 0]
                        fill[k] += 1


@njit(cache=True, nogil=True)
def _count_bins(t0, t1, tiles_x, counts):
    for i in range(t0.shape[0]):
        for ty in range(t0[i, 1], t1[i, 1] + 1):
            for tx in range(t0[i, 0], t1[i, 0] + 1):
                counts[tx + ty * tiles_x] += 1


@njit(cache=True, nogil=True)
def _fill_bins(t0, t1, tiles_x, base, fill, items):
    for i in range(t0.shape[0]):
        for ty in range(t0[i, 1], t1[i, 1] + 1):
            for tx in range(t0[i, 0], t1[i, 0] + 1):
                k = tx + ty * tiles_x
                items[fill[k]] = base + i
                fill[k] += 1


# ----------------------------------------------------------------- tile-edge regions
@njit(cache=True, nogil=True)
def _line_signatures(cell_index, cell_count, span_area, span_con, width, fixed, along_y, lo,
                     hi):
    """Per cell lo..hi-1 of one line of the grid (column ``fixed`` when ``along_y``, else
    row ``fixed``): a hash of its walkable spans' areas (bottom to top), and whether each
    of them goes on, as the span of the same rank, into the cell before it along the line
    (y - 1 along a column, x - 1 along a row) with the same area. Two consecutive cells
    along a tile edge whose signatures match and that go on into one another outline one
    edge piece; heights (slopes, steps within climb) do not matter. Only the lines along
    the tile's sides are read (not the whole grid)."""
    n = hi - lo
    sig = np.empty(n, np.int64)
    cont = np.empty(n, np.bool_)
    d = 3 if along_y else 0  # the neighbour at y - 1, at x - 1
    for i in range(n):
        c = fixed + (lo + i) * width if along_y else (lo + i) + fixed * width
        nc = c - width if along_y else c - 1
        ok = c >= width if along_y else c % width != 0
        h = np.int64(1469598103934665603)
        r = 0
        for s in range(cell_index[c], cell_index[c] + cell_count[c]):
            if span_area[s] == 0:
                continue
            h = (h ^ (span_area[s] + 1)) * np.int64(1099511628211)
            if ok:
                k = span_con[s, d]
                if k < 0 or span_area[k] != span_area[s]:
                    ok = False
                else:
                    rank = 0  # of k among the walkable spans of its cell
                    for q in range(cell_index[nc], k):
                        if span_area[q] != 0:
                            rank += 1
                    if rank != r:
                        ok = False
            r += 1
        sig[i] = h
        cont[i] = ok
    return sig, cont


@njit(cache=True, nogil=True)
def _side_segments(cell_index, cell_count, span_area, span_con, width, along_y, fixed_a,
                   fixed_b, lo, hi, w):
    """Segment number of each row lo..hi-1 along a tile side whose two columns are
    ``fixed_a`` and ``fixed_b`` (columns x when ``along_y``, else rows y): a new segment
    starts wherever either column changes its walkable areas (signatures) or breaks off
    from the row before, and at the corner squares (lo + w, hi - w). Both tiles of the
    edge know both columns, so they cut at the same rows."""
    sig_a, cont_a = _line_signatures(cell_index, cell_count, span_area, span_con, width,
                                     fixed_a, along_y, lo, hi)
    sig_b, cont_b = _line_signatures(cell_index, cell_count, span_area, span_con, width,
                                     fixed_b, along_y, lo, hi)
    out = np.zeros(hi - lo, np.int64)
    n = 0
    for i in range(1, hi - lo):
        cut = sig_a[i] != sig_a[i - 1] or sig_b[i] != sig_b[i - 1] or not cont_a[i] \
            or not cont_b[i]
        if cut or i == w or i == hi - lo - w:
            n += 1
        out[i] = n
    return out


@njit(cache=True, nogil=True)
def _tile_segments(cell_index, cell_count, span_area, span_con, width, height, x0, y0, x1,
                   y1, w):
    """The segments (:func:`_side_segments`) of the tile box's four sides: left, bottom,
    right, top."""
    a = (cell_index, cell_count, span_area, span_con, width)
    return (_side_segments(*a, True, x0 - 1, x0, y0, y1, w),
            _side_segments(*a, False, y0 - 1, y0, x0, x1, w),
            _side_segments(*a, True, x1 - 1, x1, y0, y1, w),
            _side_segments(*a, False, y1 - 1, y1, x0, x1, w))


@njit(cache=True, nogil=True)
def _split_regions(span_reg, span_area, span_con, span_x, span_cy, x0, y0, x1, y1, w,
                   seg_left, seg_bottom, seg_right, seg_top):
    """New region ids: spans in the strip along each side get the region of their side's
    segment (corner squares one per pair of segments), split into connected parts of one
    area; the other spans keep their region, also split into connected parts. Returns
    (regions, count)."""
    n = span_reg.shape[0]
    key = np.zeros(n, np.int64)
    big = np.int64(1) << 40
    for s in range(n):
        r = span_reg[s]
        if r == 0 or span_area[s] == 0:
            continue
        x = span_x[s]
        y = span_cy[s]
        near_l = x < x0 + w
        near_r = x >= x1 - w
        near_b = y < y0 + w
        near_t = y >= y1 - w
        if (near_l or near_r) and (near_b or near_t):
            # a corner square, cut by both of its sides' segments
            corner = (1 if near_r else 0) + (2 if near_t else 0)
            along_y = seg_right[y - y0] if near_r else seg_left[y - y0]
            along_x = seg_top[x - x0] if near_t else seg_bottom[x - x0]
            key[s] = -(5 * big + corner * (big >> 2) + along_y * 65536 + along_x)
        elif near_l:
            key[s] = -(big + seg_left[y - y0])
        elif near_r:
            key[s] = -(2 * big + seg_right[y - y0])
        elif near_b:
            key[s] = -(3 * big + seg_bottom[x - x0])
        elif near_t:
            key[s] = -(4 * big + seg_top[x - x0])
        else:
            key[s] = r
    out = np.zeros(n, np.int32)
    stack = np.empty(n, np.int64)
    count = _flood_keys(key, span_area, span_con, out, stack)
    # A strip part with no span in the tile's outermost columns or rows puts no vertex on
    # a tile edge: it goes back to its own region. (It is one cell wide, the last cells
    # before a wall or ledge: outlined alone, simplification cut its corner off.)
    touches = np.zeros(count + 1, np.bool_)
    for s in range(n):
        if key[s] < 0 and (span_x[s] == x0 or span_x[s] == x1 - 1 or span_cy[s] == y0
                           or span_cy[s] == y1 - 1):
            touches[out[s]] = True
    again = False
    for s in range(n):
        if key[s] < 0 and not touches[out[s]]:
            key[s] = span_reg[s]
            again = True
    if again:
        out[:] = 0
        count = _flood_keys(key, span_area, span_con, out, stack)
    return out, count


@njit(cache=True, nogil=True)
def _flood_keys(key, span_area, span_con, out, stack):
    """Number the connected parts of spans with one key and area (key 0: none) into
    ``out`` (zeros on entry), in the order of their first span; returns their count."""
    count = 0
    for s0 in range(key.shape[0]):
        if key[s0] == 0 or out[s0] != 0:
            continue
        count += 1
        out[s0] = count
        top = 0
        stack[top] = s0
        top += 1
        while top:
            top -= 1
            s = stack[top]
            for d in range(4):
                nb = span_con[s, d]
                if nb >= 0 and out[nb] == 0 and key[nb] == key[s0] \
                        and span_area[nb] == span_area[s0]:
                    out[nb] = count
                    stack[top] = nb
                    top += 1
    return count


@njit(cache=True, nogil=True)
def _drop_small_islands(span_area, span_con, span_x, span_cy, width, height, margin,
                        min_area):
    """Make unwalkable every island (walkable spans joined by connections) smaller than
    ``min_area`` spans that stays ``margin`` cells clear of the edge of the tile's grid.
    Such an island is whole here and counted as a solo bake counts it. The grid's outermost
    cells are never walkable (the ledge filter and erosion see nothing beyond them), so an
    island that comes within ``margin`` (the border less one cell) of the edge may go on
    outside and is kept."""
    n = span_area.shape[0]
    seen = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    members = np.empty(n, np.int64)
    for s0 in range(n):
        if span_area[s0] == 0 or seen[s0]:
            continue
        seen[s0] = True
        top = 0
        stack[top] = s0
        top += 1
        count = 0
        edge = False
        while top:
            top -= 1
            s = stack[top]
            members[count] = s
            count += 1
            if span_x[s] < margin or span_x[s] >= width - margin or span_cy[s] < margin \
                    or span_cy[s] >= height - margin:
                edge = True
            for d in range(4):
                nb = span_con[s, d]
                if nb >= 0 and span_area[nb] != 0 and not seen[nb]:
                    seen[nb] = True
                    stack[top] = nb
                    top += 1
        if count < min_area and not edge:
            for i in range(count):
                span_area[members[i]] = 0


@njit(cache=True, nogil=True)
def _before_regions(cell_index, cell_count, span_area, span_con, span_x, span_cy, width,
                    height, x0, y0, x1, y1, w, edge_cells, min_area):
    """What a tile does between its erosion and its regions, on the tile's grid with the
    tile box x0..x1, y0..y1: the side segments (read before anything changes), the small
    islands dropped (``min_area`` > 0; an island within ``edge_cells`` of the grid's edge
    is kept), the border cut; returns the segments (left, bottom, right, top)."""
    segments = _tile_segments(cell_index, cell_count, span_area, span_con, width, height,
                              x0, y0, x1, y1, w)
    if min_area > 0:
        _drop_small_islands(span_area, span_con, span_x, span_cy, width, height, edge_cells,
                            min_area)
    _cut_border(span_area, span_x, span_cy, x0, y0, x1, y1)
    return segments


@njit(cache=True, nogil=True)
def _cut_border(span_area, span_x, span_cy, x0, y0, x1, y1):
    """Make the spans outside the box x0..x1-1, y0..y1-1 unwalkable."""
    for s in range(span_area.shape[0]):
        if span_x[s] < x0 or span_x[s] >= x1 or span_cy[s] < y0 or span_cy[s] >= y1:
            span_area[s] = 0


@njit(cache=True, nogil=True)
def _crop_compact(cell_index, cell_count, span_area, span_con, width, x0, y0, x1, y1):
    """The cells x0..x1-1, y0..y1-1 of a compact heightfield ``width`` cells wide: their
    cell index and count, span areas, links (those leaving the box dropped) and cell x, y
    (spans in their order), and the index of each of their spans in the grid."""
    cw, chh = x1 - x0, y1 - y0
    index = np.empty(cw * chh, np.int32)
    count = np.empty(cw * chh, np.int32)
    n = 0
    for y in range(chh):
        for x in range(cw):
            c = (x + x0) + (y + y0) * width
            index[x + y * cw] = n
            count[x + y * cw] = cell_count[c]
            n += cell_count[c]
    new_of = np.full(span_area.shape[0], -1, np.int32)
    orig = np.empty(n, np.int64)
    k = 0
    for y in range(chh):
        for x in range(cw):
            c = (x + x0) + (y + y0) * width
            for s in range(cell_index[c], cell_index[c] + cell_count[c]):
                new_of[s] = k
                orig[k] = s
                k += 1
    out_area = np.empty(n, np.uint8)
    out_con = np.empty((n, 4), np.int32)
    out_x = np.empty(n, np.int32)
    out_cy = np.empty(n, np.int32)
    for y in range(chh):
        for x in range(cw):
            i = index[x + y * cw]
            for k in range(i, i + count[x + y * cw]):
                s = orig[k]
                out_area[k] = span_area[s]
                out_x[k] = x
                out_cy[k] = y
                for d in range(4):
                    a = span_con[s, d]
                    out_con[k, d] = new_of[a] if a >= 0 else -1
    return index, count, out_area, out_con, out_x, out_cy, orig


class Raster:
    """Rasterises tiles in one frame for the whole level: the level's grid widened by
    ``pad`` cells on every side. Each tile rasterises its rows of that frame (same origin,
    same arithmetic for every tile) and keeps its own columns (``rasterize_kernel``'s
    window); a tile computed apart from its neighbour would
    round a triangle edge on a cell boundary its own way, and the two could disagree by a
    cell on their common edge."""

    def __init__(self, grid: TileGrid, pad: int):
        self.grid = grid
        self.pad = pad
        self.bmin = grid.bmin.copy()
        self.bmin[0] -= pad * grid.cs
        self.bmin[1] -= pad * grid.cs
        self.width = grid.tiles_x * grid.size + 2 * pad
        self.height = grid.tiles_y * grid.size + 2 * pad

    def rasterize(self, v, t, walk, cfg, span_capacity: int = 0):
        from .rasterize import mark_walkable_triangles, rasterize_kernel
        from .stage_data import Heightfield

        # the tile grid's first cell in the frame
        ox = int(round((cfg.bmin[0] - self.bmin[0]) / cfg.cs))
        oy = int(round((cfg.bmin[1] - self.bmin[1]) / cfg.cs))
        tri_area = mark_walkable_triangles(v, t, cfg.walkable_slope_cos, walk)
        bmax = self.grid.bmax.copy()
        head, smin, smax, sarea, snext, n = rasterize_kernel(
            v, t, tri_area, self.bmin, bmax, cfg.cs, cfg.ch, self.width, self.height,
            cfg.walkable_climb, oy, oy + cfg.height, span_capacity, ox, ox + cfg.width)
        return Heightfield(width=cfg.width, height=cfg.height, bmin=cfg.bmin, cs=cfg.cs,
                           ch=cfg.ch, column_head=head, span_min=smin[:n], span_max=smax[:n],
                           span_area=sarea[:n], span_next=snext[:n])


# Pieces a tile's grid is assembled from: its own core and its 8 neighbours' (the border is
# at most half a tile, ``settings.min_tile_size``).
MAX_CORE_PIECES = 9
# Cells a core is rasterised and filtered beyond its sides: the ledge filter of a column
# reads its neighbours' solid spans (1), the neighbour links of the compact heightfield
# read the neighbours' filtered spans (2).
CORE_HALO = 2
_NONE_I32 = np.zeros(0, np.int32)
_NONE_CON = np.zeros((0, 4), np.int32)
_NONE_U8 = np.zeros(0, np.uint8)
# a piece with no core: pads the pieces of a tile to MAX_CORE_PIECES (one kernel type)
_NONE_CORE = (_NONE_I32, _NONE_I32, _NONE_I32, _NONE_I32, _NONE_U8, _NONE_CON)


class _CoreEntry:
    """One core's spans, computed by the first tile that asks (the others wait)."""

    __slots__ = ("done", "value", "error")

    def __init__(self):
        self.done = threading.Event()
        self.value = None
        self.error: BaseException | None = None


class CoreSpans(NamedTuple):
    """One core's filtered, compacted spans (cells x + y * width of the core)."""

    solid: np.ndarray  # (cells + 1,) CSR starts of the solid spans (their count only)
    start: np.ndarray  # (cells + 1,) CSR starts of the walkable (compact) spans
    span_y: np.ndarray
    span_h: np.ndarray
    span_area: np.ndarray
    con_rank: np.ndarray  # (n, 4): the linked span's rank in its column, -1 none


class SharedCores:
    """The cores of a bake of every tile, each rasterised, filtered and compacted once and
    shared by the up to four tiles whose grid reaches into it.

    A tile's grid (the tile and ``grid.border`` cells around it) is its own core and strips
    of its 8 neighbours' cores. Every tile rasterises in the level's frame
    (:class:`Raster`), so a column's solid spans do not depend on the window they are
    computed in; the three filters of a column read only its neighbours' solid spans
    (outside the grid: a ledge), and the neighbour links of its compact spans only the
    neighbours' filtered spans. So a core rasterised and filtered with ``CORE_HALO`` cells
    around it gives, for its own columns, the compact spans and links that the tile's whole
    grid gives, except in the grid's outermost ring, where the ledge filter finds a drop
    (every span there is cleared) and where links would leave the grid: the assembly
    (:func:`_assemble_compact`) drops those and builds the tile's compact heightfield,
    array for array the one of rasterising, filtering and compacting its whole grid. The
    border's cells are no longer rasterised and filtered by every tile that sees them (a
    tile of 64 cells with a border of 13 did twice the cells it owns).

    A core is the tile's cells, and at the level's sides also the frame's ``pad`` cells
    beyond (every cell of every tile's grid lies in exactly one core); its triangles are
    binned with a border of ``CORE_HALO``. A core is dropped once every tile that uses it
    has its grid (``refs``): in row order about three rows of cores are alive at a time.
    Thread-safe: tiles on threads ask for cores at once."""

    def __init__(self, grid: TileGrid, raster: Raster, v, t, walk, users,
                 settings: BakeSettings, limit: MemoryLimit | None = None):
        self.grid = grid
        self.settings = settings
        self.limit = limit
        self.raster = raster
        self.v, self.t, self.walk = v, t, walk
        self.filters = (bool(settings.filter_low_hanging_obstacles),
                        bool(settings.filter_ledge_spans), bool(settings.filter_low_height_spans))
        self.available = (memory_limit(settings) if limit is None else limit).available
        self.start, self.items = bin_triangles(grid, v, t, CORE_HALO)
        # each core's users: the tiles of ``users`` in its 3 x 3 neighbourhood (those
        # whose grid reaches into it, ``cores_of``)
        used = np.zeros((grid.tiles_y + 2, grid.tiles_x + 2), np.int64)
        used[1:-1, 1:-1].flat[np.asarray(users, np.int64)] = 1
        refs = np.zeros((grid.tiles_y, grid.tiles_x), np.int64)
        for dy in range(3):
            for dx in range(3):
                refs += used[dy:dy + grid.tiles_y, dx:dx + grid.tiles_x]
        self.refs = refs.reshape(-1)
        self.lock = threading.Lock()
        self.entries: dict[int, _CoreEntry] = {}
        # every core's box, read by each of its tiles
        size, pad = grid.size, raster.pad
        xs = [(tx * size - (pad if tx == 0 else 0),
               (tx + 1) * size + (pad if tx == grid.tiles_x - 1 else 0))
              for tx in range(grid.tiles_x)]
        ys = [(ty * size - (pad if ty == 0 else 0),
               (ty + 1) * size + (pad if ty == grid.tiles_y - 1 else 0))
              for ty in range(grid.tiles_y)]
        self._boxes = [(x0, y0, x1, y1) for y0, y1 in ys for x0, x1 in xs]

    def core_box(self, j: int) -> tuple[int, int, int, int]:
        """Core j in level cells: (x0, y0, x1, y1): the tile's cells, at the level's sides
        also the frame's ``pad`` cells beyond."""
        return self._boxes[j]

    def cores_of(self, k: int) -> list[int]:
        """The cores tile k's grid reaches into (itself and its neighbours), row by row."""
        g = self.grid
        tx, ty = k % g.tiles_x, k // g.tiles_x
        return [x + y * g.tiles_x
                for y in range(max(ty - 1, 0), min(ty + 1, g.tiles_y - 1) + 1)
                for x in range(max(tx - 1, 0), min(tx + 1, g.tiles_x - 1) + 1)]

    def _compute(self, j: int, entry: _CoreEntry, cfg) -> None:
        try:
            entry.value = self._core_spans(j, cfg)
        except BaseException as exc:
            entry.error = exc
            raise
        finally:
            entry.done.set()

    def _core_spans(self, j: int, cfg) -> CoreSpans | None:
        ids = self.items[self.start[j]:self.start[j + 1]]
        if ids.size == 0:
            return None
        x0, y0, x1, y1 = self.core_box(j)
        r, pad = self.raster, self.raster.pad
        # the window in the frame: the core and its halo (the frame's sides clip it)
        fx0, fy0 = max(x0 + pad - CORE_HALO, 0), max(y0 + pad - CORE_HALO, 0)
        fx1, fy1 = min(x1 + pad + CORE_HALO, r.width), min(y1 + pad + CORE_HALO, r.height)
        window = (fx1 - fx0) * (fy1 - fy0) * 4
        # the largest span bound the memory limit allows (the kernel stops before
        # rasterising beyond it; the check below then names the figures)
        max_bound = min(max((self.available - window) // RASTER_BYTES_PER_SPAN, -1), 2**62)
        fits, *spans = _core_kernel(
            self.v, self.t, self.walk, ids, cfg.walkable_slope_cos, r.bmin, r.grid.bmax,
            cfg.cs, cfg.ch, r.width, r.height, cfg.walkable_climb, fy0, fy1, fx0, fx1,
            max_bound, x0 + pad - fx0, y0 + pad - fy0, x1 - x0, y1 - y0,
            cfg.walkable_height, *self.filters)
        if not fits:
            tt = np.ascontiguousarray(self.t[ids])
            bound = raster_span_bound(self.v, tt, cfg.cs)
            check_memory(self.settings, window + bound * RASTER_BYTES_PER_SPAN,
                         f"rasterising {tt.shape[0]:,} triangles (up to {bound:,} spans) "
                         f"into a {fx1 - fx0:,} x {fy1 - fy0:,} cell tile core at cell_size "
                         f"{cfg.cs:g}", self.limit)
        return CoreSpans(*spans)

    def _release(self, cores) -> None:
        refs = self.refs
        with self.lock:
            for j in cores:
                refs[j] -= 1
                if refs[j] <= 0:
                    self.entries.pop(j, None)

    def acquire(self, k: int, cfg) -> tuple:
        """The pieces tile k's grid (``cfg``) is assembled from: the arguments ``geo,
        solid, starts, ys, hs, areas, cons`` of :func:`_assemble_compact` (cores computed
        here when no tile has started them). The caller assembles them, then calls
        :meth:`release` (k) whatever happens."""
        ox, oy = self.grid.origin(k, self.raster.pad)
        cores = self.cores_of(k)
        entries = []
        new = []
        with self.lock:  # one look-up for all the tile's cores
            for j in cores:
                entry = self.entries.get(j)
                if entry is None:
                    entry = self.entries[j] = _CoreEntry()
                    new.append((j, entry))
                entries.append(entry)
        # compute the cores nobody has started, then wait for those another tile (on
        # another thread) is computing: two tiles side by side both have work
        for j, entry in new:
            self._compute(j, entry, cfg)
        geo = []
        pieces = []
        boxes = self._boxes
        for j, entry in zip(cores, entries, strict=True):
            if not entry.done.is_set():
                entry.done.wait()
            if entry.error is not None:
                raise entry.error
            if entry.value is not None:
                x0, y0, x1, y1 = boxes[j]
                geo.append((x0 - ox, y0 - oy, x1 - x0, y1 - y0))
                pieces.append(entry.value)
        missing = MAX_CORE_PIECES - len(pieces)
        solid, start, ys, hs, areas, cons = zip(*pieces, *[_NONE_CORE] * missing,
                                                strict=True)
        return (np.array(geo, np.int64).reshape(-1, 4), solid, start, ys, hs, areas, cons)

    def release(self, k: int) -> None:
        """Tile k has its grid: a core no other tile needs is dropped."""
        self._release(self.cores_of(k))

    def tile_compact(self, k: int, cfg):
        """Tile k's compact heightfield (its grid: ``cfg``) assembled from the cores, and
        the solid span count of its grid."""
        from .stage_data import CompactHeightfield

        try:
            out = _assemble_compact(*self.acquire(k, cfg), cfg.width, cfg.height,
                                    self.filters[1])
        finally:
            self.release(k)
        index, count, span_y, span_h, area, con, sx, sy, n_solid = out
        chf = CompactHeightfield(width=cfg.width, height=cfg.height, bmin=cfg.bmin, cs=cfg.cs,
                                 ch=cfg.ch, walkable_height=cfg.walkable_height,
                                 walkable_climb=cfg.walkable_climb, cell_index=index,
                                 cell_count=count, span_y=span_y, span_h=span_h,
                                 span_area=area, span_con=con, span_x=sx, span_cy=sy)
        return chf, int(n_solid)


@njit(cache=True, nogil=True)
def _core_kernel(v, t, walk, ids, slope_cos, rbmin, rbmax, cs, ch, rw, rh, climb, fy0, fy1,
                 fx0, fx1, max_bound, cx, cy, cw, chh, walkable_height, low_hanging, ledges,
                 low_height):
    """One core in one call: its triangles ``ids`` marked walkable, rasterised into the
    window ``fx0..fx1``, ``fy0..fy1`` of the frame (``rw`` x ``rh`` cells at ``rbmin``)
    and made :class:`CoreSpans` (:func:`_core_compact`). Returns (fits, *CoreSpans):
    ``fits`` False (empty arrays) when the span bound of the triangles
    (``settings.raster_span_bound``) exceeds ``max_bound``, before rasterising."""
    m = ids.shape[0]
    tt = np.empty((m, 3), t.dtype)
    tw = np.empty(m, walk.dtype)
    for i in range(m):
        tt[i, 0] = t[ids[i], 0]
        tt[i, 1] = t[ids[i], 1]
        tt[i, 2] = t[ids[i], 2]
        tw[i] = walk[ids[i]]
    bound = np.int64(min(footprint_cell_bound(v, tt, cs), 2.0**62))
    if bound > max_bound:
        none = np.zeros(0, np.int32)
        return (False, none, none, none, none, np.zeros(0, np.uint8),
                np.zeros((0, 4), np.int32))
    tri_area = mark_walkable_triangles(v, tt, slope_cos, tw)
    head, smin, smax, sarea, snext, n = rasterize_kernel(
        v, tt, tri_area, rbmin, rbmax, cs, ch, rw, rh, climb, fy0, fy1, 0, fx0, fx1)
    solid, start, span_y, span_h, area, con_rank = _core_compact(
        head, smin[:n], smax[:n], sarea[:n], snext[:n], fx1 - fx0, fy1 - fy0, cx, cy, cw,
        chh, walkable_height, climb, low_hanging, ledges, low_height)
    return True, solid, start, span_y, span_h, area, con_rank


@njit(cache=True, nogil=True)
def _core_compact(head, smin, smax, sarea, snext, ww, wh, cx, cy, cw, chh, walkable_height,
                  walkable_climb, low_hanging, ledges, low_height):
    """The :class:`CoreSpans` of the core ``cx, cy, cw, chh`` of a window of ``ww`` x ``wh``
    cells rasterised (``rasterize_kernel``'s arrays): the window filtered and compacted as
    a grid of its own, the core's columns kept, links as ranks in the linked column."""
    if low_hanging or ledges or low_height:
        _filter_columns(head, smin, smax, sarea, snext, ww, wh, walkable_height,
                        walkable_climb, low_hanging, ledges, low_height, 0, wh)
    cells = ww * wh
    room = 0
    for s in range(sarea.shape[0]):
        if sarea[s] != 0:
            room += 1
    index = np.empty(cells, np.int32)
    count = np.empty(cells, np.int32)
    wy = np.empty(room, np.int32)
    wh_ = np.empty(room, np.int32)
    warea = np.empty(room, np.uint8)
    wx = np.empty(room, np.int32)
    wcy = np.empty(room, np.int32)
    total = _fill_spans(head, smin, smax, sarea, snext, ww, index, count, wy, wh_, warea, wx,
                        wcy)
    wcon = np.empty((total, 4), np.int32)
    _link_neighbours(ww, wh, index, count, wy, wh_, wcon, walkable_height, walkable_climb, 0,
                     wh)
    # the core's columns
    solid = np.empty(cw * chh + 1, np.int32)
    start = np.empty(cw * chh + 1, np.int32)
    n_solid = 0
    n = 0
    for y in range(chh):
        for x in range(cw):
            c = (x + cx) + (y + cy) * ww
            solid[x + y * cw] = n_solid
            s = head[c]
            while s != -1:
                n_solid += 1
                s = snext[s]
            start[x + y * cw] = n
            n += count[c]
    solid[cw * chh] = n_solid
    start[cw * chh] = n
    span_y = np.empty(n, np.int32)
    span_h = np.empty(n, np.int32)
    area = np.empty(n, np.uint8)
    con_rank = np.empty((n, 4), np.int32)
    k = 0
    for y in range(chh):
        for x in range(cw):
            c = (x + cx) + (y + cy) * ww
            m = count[c]
            if m == 0:
                continue
            # first span of the neighbour column in each direction (-x, +y, +x, -y); a
            # core column's neighbours lie in the window
            b0 = index[c - 1]
            b1 = index[c + ww]
            b2 = index[c + 1]
            b3 = index[c - ww]
            for i in range(index[c], index[c] + m):
                span_y[k] = wy[i]
                span_h[k] = wh_[i]
                area[k] = warea[i]
                nb = wcon[i, 0]
                con_rank[k, 0] = nb - b0 if nb >= 0 else -1
                nb = wcon[i, 1]
                con_rank[k, 1] = nb - b1 if nb >= 0 else -1
                nb = wcon[i, 2]
                con_rank[k, 2] = nb - b2 if nb >= 0 else -1
                nb = wcon[i, 3]
                con_rank[k, 3] = nb - b3 if nb >= 0 else -1
                k += 1
    return solid, start, span_y, span_h, area, con_rank


@njit(cache=True, nogil=True)
def _assemble_compact(geo, solid, starts, ys, hs, areas, cons, width, height, ledges):
    """A tile grid's compact heightfield (``width`` x ``height`` cells) from the cores
    ``geo`` (rows: first cell x, y in the grid, possibly negative, and size) and their
    :class:`CoreSpans`: the arrays of ``compact.build_compact_heightfield`` on the grid
    rasterised and filtered whole, and its solid span count. ``ledges``: the ledge filter
    clears every span of the grid's outermost ring (a neighbour outside the grid is a
    drop), so those columns have no compact span and no link reaches them."""
    cells = width * height
    cell_index = np.empty(cells, np.int32)
    cell_count = np.zeros(cells, np.int32)
    n_solid = 0
    for p in range(geo.shape[0]):
        gx, gy, cw, chh = geo[p, 0], geo[p, 1], geo[p, 2], geo[p, 3]
        st = starts[p]
        so = solid[p]
        xa, xb = max(gx, 0), min(gx + cw, width)
        if xa >= xb:
            continue
        for y in range(max(gy, 0), min(gy + chh, height)):
            row = (y - gy) * cw - gx
            n_solid += so[row + xb] - so[row + xa]
            for x in range(xa, xb):
                cell_count[x + y * width] = st[row + x + 1] - st[row + x]
    if ledges:
        for x in range(width):
            cell_count[x] = 0
            cell_count[x + (height - 1) * width] = 0
        for y in range(height):
            cell_count[y * width] = 0
            cell_count[width - 1 + y * width] = 0
    total = 0
    for c in range(cells):
        cell_index[c] = total
        total += cell_count[c]
    span_y = np.empty(total, np.int32)
    span_h = np.empty(total, np.int32)
    span_area = np.empty(total, np.uint8)
    span_con = np.empty((total, 4), np.int32)
    span_x = np.empty(total, np.int32)
    span_cy = np.empty(total, np.int32)
    for p in range(geo.shape[0]):
        gx, gy, cw, chh = geo[p, 0], geo[p, 1], geo[p, 2], geo[p, 3]
        st, sy_, sh_, sa_, sc_ = starts[p], ys[p], hs[p], areas[p], cons[p]
        for y in range(max(gy, 0), min(gy + chh, height)):
            row = (y - gy) * cw - gx
            for x in range(max(gx, 0), min(gx + cw, width)):
                c = x + y * width
                m = cell_count[c]
                if m == 0:
                    continue
                # per direction (-x, +y, +x, -y): the neighbour column's first span and
                # span count in the grid (0: outside the grid or no spans)
                b0 = b1 = b2 = b3 = 0
                n0 = n1 = n2 = n3 = 0
                if x > 0:
                    b0, n0 = cell_index[c - 1], cell_count[c - 1]
                if y < height - 1:
                    b1, n1 = cell_index[c + width], cell_count[c + width]
                if x < width - 1:
                    b2, n2 = cell_index[c + 1], cell_count[c + 1]
                if y > 0:
                    b3, n3 = cell_index[c - width], cell_count[c - width]
                first = st[row + x]
                k = cell_index[c]
                for i in range(m):
                    s = first + i
                    span_y[k] = sy_[s]
                    span_h[k] = sh_[s]
                    span_area[k] = sa_[s]
                    span_x[k] = x
                    span_cy[k] = y
                    r = sc_[s, 0]
                    span_con[k, 0] = b0 + r if 0 <= r < n0 else -1
                    r = sc_[s, 1]
                    span_con[k, 1] = b1 + r if 0 <= r < n1 else -1
                    r = sc_[s, 2]
                    span_con[k, 2] = b2 + r if 0 <= r < n2 else -1
                    r = sc_[s, 3]
                    span_con[k, 3] = b3 + r if 0 <= r < n3 else -1
                    k += 1
    return (cell_index, cell_count, span_y, span_h, span_area, span_con, span_x, span_cy,
            n_solid)


@njit(cache=True, nogil=True)
def _tile_regions(cell_index, cell_count, span_area, span_con, span_x, span_cy, width, x0,
                  y0, x1, y1, watershed, min_region_area, merge_region_area, w, seg_left,
                  seg_bottom, seg_right, seg_top):
    """A tile's regions: ``regions.build_regions`` on the grid cropped to the tile box
    (after the border cut every span outside it is unwalkable, and the region kernels
    treat a link to an unwalkable span as no link; the spans keep their order, so the
    regions are those of the whole grid, on a smaller grid), mapped back to the grid's
    spans and cut into the tile-edge strips (:func:`_split_regions`). Returns (regions,
    count)."""
    index, count, area, con, sx, sy, orig = _crop_compact(
        cell_index, cell_count, span_area, span_con, width, x0, y0, x1, y1)
    cw, chh = x1 - x0, y1 - y0
    n = area.shape[0]
    reg = np.zeros(span_area.shape[0], np.int32)
    if n > 0:
        if watershed:
            walkable = np.empty(n, np.bool_)
            for i in range(n):
                walkable[i] = area[i] != 0
            seed = _area_boundary(con, area)
            dist = chamfer_distance(con, walkable, seed, sx, sy, cw, chh, index, count)
            dist = _box_blur(con, area, dist, 1)
            order = _order_by_distance(dist, area)
            creg, n_regions = _watershed(con, area, dist, order)
        else:
            creg, n_regions = _monotone(con, area, index, count, cw, chh)
        if n_regions > 0:
            _merge_regions(creg, area, con, index, count, n_regions, min_region_area,
                           merge_region_area)
        for k in range(n):
            reg[orig[k]] = creg[k]
    return _split_regions(reg, span_area, span_con, span_x, span_cy, x0, y0, x1, y1, w,
                          seg_left, seg_bottom, seg_right, seg_top)


@njit(cache=True, nogil=True)
def _tile_walkable(span_h, span_area, span_con, span_x, span_cy, width, height, cell_index,
                   cell_count, multi, stand_h, crouch_h, prone_h, radius):
    """The stances and the erosion of a tile's grid, in place: ``run_stages``' stances and
    erode stages (with ``multi``: the spans classified by clearance, eroded by ``radius``
    cells, then the stance noise filtered; else every walkable span stands)."""
    n = span_area.shape[0]
    if multi:
        _classify(span_h, span_area, stand_h, crouch_h, prone_h)
    else:
        for i in range(n):
            if span_area[i] != 0:
                span_area[i] = AREA_STAND
    if radius > 0 and n > 0:
        _erode(span_con, span_area, span_x, span_cy, width, height, cell_index, cell_count,
               radius)
    if multi and n > 0:
        span_area[:] = _lowering_median(span_con, span_area)


@njit(cache=True, nogil=True)
def _tile_grid(geo, solid, starts, ys, hs, areas, cons, width, height, ledges, multi,
               stand_h, crouch_h, prone_h, radius):
    """A tile's compact heightfield assembled from the cores (:func:`_assemble_compact`,
    same return), its stances and erosion done (:func:`_tile_walkable`)."""
    index, count, span_y, span_h, area, con, sx, sy, n_solid = _assemble_compact(
        geo, solid, starts, ys, hs, areas, cons, width, height, ledges)
    _tile_walkable(span_h, area, con, sx, sy, width, height, index, count, multi, stand_h,
                   crouch_h, prone_h, radius)
    return index, count, span_y, span_h, area, con, sx, sy, n_solid


@njit(cache=True, nogil=True)
def _tile_mesh(cell_index, cell_count, span_y, span_area, span_con, span_x, span_cy, width,
               height, x0, y0, x1, y1, strip, edge_cells, min_area, watershed,
               merge_region_area, max_regions, max_error, max_edge_len, nvp, weld_tol, cs, ch,
               sample_dist, sample_max_error, bmin):
    """A tile's polygons and detail mesh from its eroded compact heightfield, in one call:
    the small islands and the border cut (:func:`_before_regions`), the regions
    (:func:`_tile_regions`), the contours with the tile's sides as portals
    (``contours.build_contours(tile_box=..., strip_cells=strip)``), the polygons
    (``polymesh.build_poly_mesh`` without the neighbours: the merge finds them) and the
    detail mesh (``detail.build_detail_mesh``, vertices in world units from the grid's
    corner ``bmin``), the arithmetic of those functions step for step.

    Returns (region count, contour count, polygon vertices (V, 3) int32 in grid cells,
    polygons (P, nvp) int32, regions int32, areas uint8, detail meshes, detail vertices,
    detail triangles); no polygons when the tile has more than ``max_regions`` regions
    (the caller refuses the tile) or none."""
    seg_l, seg_b, seg_r, seg_t = _before_regions(
        cell_index, cell_count, span_area, span_con, span_x, span_cy, width, height, x0, y0,
        x1, y1, strip, edge_cells, min_area)
    reg, n_regions = _tile_regions(
        cell_index, cell_count, span_area, span_con, span_x, span_cy, width, x0, y0, x1, y1,
        watershed, 0, merge_region_area, strip, seg_l, seg_b, seg_r, seg_t)
    pverts = np.zeros((0, 3), np.int32)
    polys = np.zeros((0, nvp), np.int32)
    preg = np.zeros(0, np.int32)
    parea = np.zeros(0, np.uint8)
    dmeshes = np.zeros((0, 4), np.int32)
    dverts = np.zeros((0, 3), np.float64)
    dtris = np.zeros((0, 4), np.int32)
    if n_regions > max_regions or span_y.shape[0] == 0:
        return n_regions, 0, pverts, polys, preg, parea, dmeshes, dverts, dtris
    raw, raw_start, loop_reg, loop_area = _walk_outlines(span_y, span_area, span_con, span_x,
                                                         span_cy, reg)
    if loop_reg.shape[0] == 0:
        return n_regions, 0, pverts, polys, preg, parea, dmeshes, dverts, dtris
    loop_error = np.full(raw_start.shape[0] - 1, -1.0)
    _mark_tile_edges(raw, raw_start, x0, y0, x1, y1)
    if strip > 0:
        _strip_loops_error(raw, raw_start, x0, y0, x1, y1, strip, STRIP_MAX_ERROR, loop_error)
    simp, simp_start = _simplify_all(raw, raw_start, max_error, max_edge_len, loop_error)
    cverts, cstart, owner = _merge_holes(simp, simp_start, loop_reg)
    n_contours = cstart.shape[0] - 1
    # each contour's region and area: those of the last raw loop merged into it
    creg = np.zeros(n_contours, np.int64)
    carea = np.zeros(n_contours, np.int64)
    for c in range(owner.shape[0]):
        o = owner[c]
        if o >= 0:
            creg[o] = np.int32(loop_reg[c])
            carea[o] = np.uint8(loop_area[c])
    allv, allp, allreg, allarea, _n_failed = _build_polys(cverts, cstart, creg, carea, nvp,
                                                          weld_tol)
    pverts, polys = _drop_unused_vertices(allv, allp)
    preg = allreg.astype(np.int32)
    parea = allarea.astype(np.uint8)
    if polys.shape[0] == 0:
        return n_regions, n_contours, pverts, polys, preg, parea, dmeshes, dverts, dtris
    dmeshes, local, dtris = _detail_kernel(
        pverts, polys, preg, True, width, height, cell_index, cell_count, span_y, span_con,
        reg, span_x, span_cy, cs, ch, sample_dist, sample_max_error)
    dverts = np.empty_like(local)
    for i in range(local.shape[0]):
        for j in range(3):
            dverts[i, j] = bmin[j] + local[i, j]
    return n_regions, n_contours, pverts, polys, preg, parea, dmeshes, dverts, dtris


# ------------------------------------------------------------------ input validation
class CheckedInput(NamedTuple):
    """A validated bake input, kept in ``TileCache.inputs`` for the next bake."""

    vertices: np.ndarray  # copy, float64 (N, 3)
    triangles: np.ndarray  # copy, int32 (M, 3) as given (degenerate ones included)
    walkable: np.ndarray  # copy, bool (M,)
    used: np.ndarray  # bool (N,): some triangle uses the vertex
    degenerate: np.ndarray  # bool (M,)
    bounds: np.ndarray  # (2, 3): min and max of the used vertices
    on_bounds: np.ndarray  # (2, 3) int64: how many used vertices lie on each bound
    # the triangles of each vertex (CSR: vertex i's are corner_tris[corner_start[i]:...])
    corner_start: np.ndarray
    corner_tris: np.ndarray
    # counts the validations; the tile bins of a bake are kept with the generation they
    # were made for (``bake_tiles``): the next bake's are updated from them
    generation: int = 0
    # what the last validation found moved: the triangles using a moved vertex (None:
    # all, a full validation) and their boxes (x0, x1, y0, y1) before
    moved_tris: np.ndarray | None = None
    moved_old_xy: np.ndarray | None = None
    degenerate_count: int = 0


class FullCheck(NamedTuple):
    """``pipeline.validate_geometry`` and the degeneracy ratio it tests with (passed in:
    the pipeline imports this module)."""

    validate: Callable
    degenerate_ratio: float


def validate_cached(vertices, triangles, walkable, cache: TileCache, full: FullCheck):
    """``full.validate`` (``pipeline.validate_geometry``) for a bake with a tile cache
    (same result, same errors). When the triangles and walkable flags are those the
    cache's last bake was given (an edit that moved objects), only the vertices that moved
    are checked again (finite, within range), only the triangles using them tested for
    degeneracy, and the bounds updated from them (the number of used vertices on each
    bound is kept: the bounds are computed again over every used vertex only when every
    vertex on one moved off it). Anything else validates everything and keeps copies of
    the input for the next bake (about 33 bytes per vertex and 26 per triangle)."""
    from .geometry import degenerate_triangles, used_vertex_bounds

    prev = cache.inputs
    v, t, w = vertices, triangles, walkable
    plain = (isinstance(v, np.ndarray) and isinstance(t, np.ndarray)
             and v.dtype == np.float64 and v.ndim == 2 and v.shape[1:] == (3,)
             and v.flags.c_contiguous and t.dtype == np.int32 and t.ndim == 2
             and t.shape[1:] == (3,) and t.flags.c_contiguous
             and (w is None or (isinstance(w, np.ndarray) and w.dtype == np.bool_
                                and w.shape == (t.shape[0],))))
    if not plain:
        cache.inputs = None
        return full.validate(vertices, triangles, walkable)
    if prev is None or v.shape != prev.vertices.shape or t.shape != prev.triangles.shape \
            or not _same_rows(t, prev.triangles) \
            or not (prev.walkable.all() if w is None else np.array_equal(w, prev.walkable)):
        return _validate_all(v, t, w, cache, full)
    moved = _moved_rows(v, prev.vertices)
    bounds, on_bounds = prev.bounds.copy(), prev.on_bounds.copy()
    tris = np.zeros(0, np.int64)
    old_xy = np.zeros((0, 4), np.float64)
    if moved.size:
        used = moved[prev.used[moved]]
        if used.size:
            new = v[used]
            if not np.isfinite(new).all() \
                    or np.abs(new).max() > MAX_COORDINATE:
                return _validate_all(v, t, w, cache, full)  # raises the full check's error
            got = _moved_bounds(bounds, on_bounds, prev.vertices[used], new)
            if got is None:  # every vertex on a bound moved off it: all again
                bmin, bmax, _finite = used_vertex_bounds(v, t)
                bounds = np.stack([bmin, bmax])
                on_bounds = _count_on_bounds(v[prev.used], bounds)
            else:
                bounds, on_bounds = got
        tris = np.unique(_csr_rows(prev.corner_start, prev.corner_tris, moved))
        if tris.size:
            prev.degenerate[tris] = degenerate_triangles(v, np.ascontiguousarray(t[tris]),
                                                         full.degenerate_ratio)
            old_xy = _xy_boxes(prev.vertices, t, tris)
        prev.vertices[moved] = v[moved]
    n_deg = int(prev.degenerate.sum())
    if n_deg == t.shape[0]:
        return _validate_all(v, t, w, cache, full)  # raises: nothing to bake
    cache.validations += 1
    cache.inputs = prev._replace(bounds=bounds, on_bounds=on_bounds,
                                 generation=cache.validations, moved_tris=tris,
                                 moved_old_xy=old_xy, degenerate_count=n_deg)
    walk = np.ones(t.shape[0], np.bool_) if w is None else w
    if n_deg:
        keep = ~prev.degenerate
        return v, np.ascontiguousarray(t[keep]), np.ascontiguousarray(walk[keep]), n_deg, \
            bounds.copy()
    return v, t, walk, 0, bounds.copy()


def _validate_all(v, t, w, cache: TileCache, full: FullCheck):
    """Validate everything (raising what ``full.validate`` raises) and keep the input."""
    from .geometry import degenerate_triangles

    cache.inputs = None
    out = full.validate(v, t, w)
    used = np.zeros(v.shape[0], np.bool_)
    used[t.reshape(-1)] = True
    walk = np.ones(t.shape[0], np.bool_) if w is None else w.copy()
    degenerate = degenerate_triangles(v, t, full.degenerate_ratio) if out[3] else \
        np.zeros(t.shape[0], np.bool_)
    corner_start, corner_tris = _vertex_triangles(t, v.shape[0])
    cache.validations += 1
    cache.inputs = CheckedInput(v.copy(), t.copy(), walk, used, degenerate, out[4].copy(),
                                _count_on_bounds(v[used], out[4]), corner_start, corner_tris,
                                generation=cache.validations, degenerate_count=out[3])
    return out


@njit(cache=True, nogil=True)
def _xy_boxes(v, t, tris):
    """(x0, x1, y0, y1) of each triangle ``tris``."""
    out = np.empty((tris.shape[0], 4), np.float64)
    for j in range(tris.shape[0]):
        a, b, c = t[tris[j], 0], t[tris[j], 1], t[tris[j], 2]
        out[j, 0] = min(v[a, 0], v[b, 0], v[c, 0])
        out[j, 1] = max(v[a, 0], v[b, 0], v[c, 0])
        out[j, 2] = min(v[a, 1], v[b, 1], v[c, 1])
        out[j, 3] = max(v[a, 1], v[b, 1], v[c, 1])
    return out


@njit(cache=True, nogil=True)
def _box_ranges(xy, bx, by, cs, border, size, tiles_x, tiles_y):
    """Tile ranges (tx0, tx1, ty0, ty1) of boxes ``xy`` (the arithmetic of
    :func:`_tile_ranges`)."""
    out = np.empty((xy.shape[0], 4), np.int64)
    for j in range(xy.shape[0]):
        cx0 = np.int64(math.floor((xy[j, 0] - bx) / cs)) - border - 1
        cx1 = np.int64(math.floor((xy[j, 1] - bx) / cs)) + border + 1
        cy0 = np.int64(math.floor((xy[j, 2] - by) / cs)) - border - 1
        cy1 = np.int64(math.floor((xy[j, 3] - by) / cs)) + border + 1
        out[j, 0] = min(max(cx0 // size, 0), tiles_x - 1)
        out[j, 1] = min(max(cx1 // size, 0), tiles_x - 1)
        out[j, 2] = min(max(cy0 // size, 0), tiles_y - 1)
        out[j, 3] = min(max(cy1 // size, 0), tiles_y - 1)
    return out


def rebin(grid: TileGrid, v: np.ndarray, t: np.ndarray, start: np.ndarray,
          items: np.ndarray, moved: np.ndarray, old_xy: np.ndarray):
    """The tile bins (:func:`bin_triangles`, every tile) after the triangles ``moved``
    (sorted) moved from boxes ``old_xy``: each affected tile's list loses them and gains
    those whose new box reaches it, in ascending order, as a binning from scratch."""
    if moved.size == 0:
        return start, items
    args = (float(grid.bmin[0]), float(grid.bmin[1]), float(grid.cs), int(grid.border),
            int(grid.size), int(grid.tiles_x), int(grid.tiles_y))
    old_r = _box_ranges(old_xy, *args)
    new_r = _box_ranges(_xy_boxes(v, t, moved), *args)
    affected: set[int] = set()
    for r in (old_r, new_r):
        for tx0, tx1, ty0, ty1 in {tuple(row) for row in r.tolist()}:
            for ty in range(ty0, ty1 + 1):
                affected.update(tx + ty * grid.tiles_x for tx in range(tx0, tx1 + 1))
    lists = []
    tiles_x = grid.tiles_x
    for k in range(grid.tile_count):
        own = items[start[k]:start[k + 1]]
        if k in affected:
            tx, ty = k % tiles_x, k // tiles_x
            into = (new_r[:, 0] <= tx) & (tx <= new_r[:, 1]) & (new_r[:, 2] <= ty) \
                & (ty <= new_r[:, 3])
            at = np.minimum(np.searchsorted(moved, own), moved.size - 1)
            kept = own[moved[at] != own]  # both sorted: merged, not sorted again
            add = moved[into]
            own = np.insert(kept, np.searchsorted(kept, add), add).astype(np.int32)
        lists.append(own)
    new_start = np.zeros(grid.tile_count + 1, np.int64)
    np.cumsum([a.size for a in lists], out=new_start[1:])
    return new_start, np.concatenate(lists).astype(np.int32, copy=False)


@njit(cache=True, nogil=True)
def _vertex_triangles(t, n_verts):
    """CSR of the triangles using each vertex (counting sort of the corners)."""
    start = np.zeros(n_verts + 1, np.int64)
    for i in range(t.shape[0]):
        for k in range(3):
            start[t[i, k] + 1] += 1
    for j in range(n_verts):
        start[j + 1] += start[j]
    fill = start[:-1].copy()
    items = np.empty(3 * t.shape[0], np.int32)
    for i in range(t.shape[0]):
        for k in range(3):
            items[fill[t[i, k]]] = i
            fill[t[i, k]] += 1
    return start, items


@njit(cache=True, nogil=True)
def _csr_rows(start, items, rows):
    n = 0
    for r in rows:
        n += start[r + 1] - start[r]
    out = np.empty(n, np.int64)
    n = 0
    for r in rows:
        for j in range(start[r], start[r + 1]):
            out[n] = items[j]
            n += 1
    return out


def _count_on_bounds(used_vertices: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    return np.stack([(used_vertices == bounds[0]).sum(axis=0),
                     (used_vertices == bounds[1]).sum(axis=0)]).astype(np.int64)


def _moved_bounds(bounds, on_bounds, old, new):
    """The bounds and their vertex counts after used vertices moved from ``old`` to
    ``new``; None when a bound lost every vertex on it (then only a pass over every used
    vertex finds the new one)."""
    bounds, on_bounds = bounds.copy(), on_bounds.copy()
    for side, pick in ((0, np.min), (1, np.max)):
        for axis in range(3):
            b = bounds[side, axis]
            left = on_bounds[side, axis] - int((old[:, axis] == b).sum())
            if left <= 0:
                return None
            nb = float(pick(new[:, axis]))
            beyond = nb < b if side == 0 else nb > b
            if beyond:
                bounds[side, axis] = nb
                on_bounds[side, axis] = int((new[:, axis] == nb).sum())
            else:
                on_bounds[side, axis] = left + int((new[:, axis] == b).sum())
    return bounds, on_bounds


@njit(cache=True, nogil=True)
def _same_rows(a, b) -> bool:
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            if a[i, k] != b[i, k]:
                return False
    return True


@njit(cache=True, nogil=True)
def _moved_rows(v, old):
    """Rows of v that differ from old (a NaN always differs)."""
    out = np.empty(64, np.int64)
    n = 0
    for i in range(v.shape[0]):
        if v[i, 0] != old[i, 0] or v[i, 1] != old[i, 1] or v[i, 2] != old[i, 2]:
            if n == out.shape[0]:
                grown = np.empty(2 * n, np.int64)
                grown[:n] = out
                out = grown
            out[n] = i
            n += 1
    return out[:n].copy()


# --------------------------------------------------------------------------- the bake
class TilePart(NamedTuple):
    """One tile's polygons, vertices in level cells (x, y) and voxel levels (z)."""

    tile: int
    verts: np.ndarray  # (V, 3) int64
    polys: np.ndarray  # (P, nvp) int32, local vertex indices
    regs: np.ndarray
    areas: np.ndarray
    dmeshes: np.ndarray
    dverts: np.ndarray
    dtris: np.ndarray


def _tile_progress(progress, k: int, n: int):
    """The per-stage callback of tile k: reports ``"tile k+1/n: stage"`` over the tile's
    share of the bake (the navmesh part is 90%, links the rest)."""
    from .stages import STAGES

    def stage(name, i):
        if progress is not None:
            progress(f"tile {k + 1}/{n}: {name}", 0.9 * (k + i / len(STAGES)) / n)
        return time.perf_counter()

    return stage


def cache_key(settings: BakeSettings, grid: TileGrid, volumes=(), area_names=None) -> tuple:
    """What a cached tile's polygons depend on besides its own triangles."""
    return (json.dumps(settings.to_dict(), sort_keys=True, default=str),
            tuple(grid.bmin.tolist()), tuple(grid.bmax.tolist()), grid.tiles_x, grid.tiles_y,
            repr(volumes), None if area_names is None else tuple(area_names))


def tiles_touching(grid: TileGrid, boxes, border: int) -> set[int]:
    """Tiles whose grid (the tile and ``border`` cells around it) a world box touches
    (``boxes``: (min xyz, max xyz) pairs; the same margin as :func:`bin_triangles`)."""
    out: set[int] = set()
    for lo, hi in boxes:
        lo = np.asarray(lo, np.float64)
        hi = np.asarray(hi, np.float64)
        cmin = np.floor((lo[:2] - grid.bmin[:2]) / grid.cs).astype(np.int64) - border - 1
        cmax = np.floor((hi[:2] - grid.bmin[:2]) / grid.cs).astype(np.int64) + border + 1
        t0 = np.clip(np.floor_divide(cmin, grid.size), 0, [grid.tiles_x - 1, grid.tiles_y - 1])
        t1 = np.clip(np.floor_divide(cmax, grid.size), 0, [grid.tiles_x - 1, grid.tiles_y - 1])
        if (cmax < 0).any() or cmin[0] >= grid.tiles_x * grid.size \
                or cmin[1] >= grid.tiles_y * grid.size:
            continue
        for ty in range(int(t0[1]), int(t1[1]) + 1):
            for tx in range(int(t0[0]), int(t1[0]) + 1):
                out.add(tx + ty * grid.tiles_x)
    return out


def bake_tiles(v, t, walk, settings: BakeSettings, bmin, bmax, progress, timings: dict,
               stats: dict, volumes=(), area_names=None, cache: TileCache | None = None,
               changed=None) -> NavMesh:
    """The navmesh of a tiled bake (no links yet): tile by tile, merged into one mesh
    (``volumes`` / ``area_names``: modifier volumes marking user areas, ``core.areas``).

    ``cache`` (:class:`TileCache`) keeps every tile's polygons; with ``changed`` (world
    boxes: the old and new bounds of every object edited since the cached bake) only the
    tiles those boxes touch are baked again and the others come from the cache. The result
    is the same as a bake of every tile."""

    grid = tile_grid(settings, bmin, bmax)
    stats["grid"] = [grid.tiles_x * grid.size, grid.tiles_y * grid.size]
    stats["tiles"] = [grid.tiles_x, grid.tiles_y]
    # where the tiles lie (the multi-tile Detour export places its tiles by it)
    stats["tile_grid"] = {"origin": [float(grid.bmin[0]), float(grid.bmin[1])],
                          "tile_size": grid.size, "cell_size": grid.cs,
                          "tiles": [grid.tiles_x, grid.tiles_y]}
    if cache is None:
        cache = TileCache()
        changed = None
    key = cache_key(settings, grid, volumes, area_names)
    if changed is None or cache.key != key:
        cache.clear(key)
        todo = range(grid.tile_count)
    else:
        todo = sorted(tiles_touching(grid, changed, grid.border))
        cache.key, cache.pending = None, key
    todo = list(todo)
    t0 = time.perf_counter()
    start, items = _tile_bins(cache, grid, v, t, todo)
    timings["tiles_bin"] = (time.perf_counter() - t0) * 1000.0
    raster = Raster(grid, grid.border)
    limit = memory_limit(settings)
    mode = tile_parallel_mode(len(todo))
    cores = None
    if len(todo) == grid.tile_count and len(todo) > 1 and mode != "processes":
        # every tile is baked: each core is rasterised once, shared by the tiles around it
        # (forked workers could not share them)
        t0 = time.perf_counter()
        cores = SharedCores(grid, raster, v, t, walk,
                            [k for k in todo if start[k + 1] > start[k]], settings, limit)
        timings["tiles_bin"] += (time.perf_counter() - t0) * 1000.0
    if settings.partition not in ("watershed", "monotone"):
        raise ValueError(f"partition: unknown kind {settings.partition!r}")
    template = tile_config_template(settings, grid, grid.border, limit)
    job = _TileJob(v, t, walk, settings, grid, start, items, raster, volumes, area_names,
                   limit, cores, template,
                   area_names is not None and len(area_names) > len(BUILTIN_AREAS),
                   *tile_kernel_args(settings, grid, template[0]))
    for k in todo:
        cache.parts.pop(k, None)
        cache.tile_stats.pop(k, None)
    stats["tiles_parallel"] = mode
    for k, tile_stats, part, tile_ms in _run_tiles(job, todo, mode, progress):
        for name, ms in tile_ms.items():
            timings[name] = timings.get(name, 0.0) + ms
        if tile_stats is None:
            continue
        cache.tile_stats[k] = tile_stats
        if part is not None:
            cache.parts[k] = part
    cache.rebaked = list(todo)
    for tile_stats in cache.tile_stats.values():
        for name, value in tile_stats.items():
            stats[name] = stats.get(name, 0) + value
    stats["tiles_baked"] = len(cache.tile_stats)
    stats["tiles_rebaked"] = len(cache.rebaked)
    t0 = time.perf_counter()
    nm = merge_tiles([cache.parts[k] for k in sorted(cache.parts)], grid, settings)
    timings["tiles_merge"] = (time.perf_counter() - t0) * 1000.0
    return nm


def bins_key(grid: TileGrid, n_triangles: int) -> tuple:
    """What a tile binning depends on besides the triangles' positions."""
    return (tuple(grid.bmin.tolist()), grid.cs, grid.size, grid.border, grid.tiles_x,
            grid.tiles_y, int(n_triangles))


def _tile_bins(cache: TileCache, grid: TileGrid, v, t, todo: list[int]):
    """The triangles of the tiles ``todo`` (:func:`bin_triangles`). A bake of every tile
    bins every tile and keeps the bins in the cache with the validated input's generation
    (``validate_cached``); the next bake, whose validation found which triangles moved
    since, updates them (:func:`rebin`) instead of a pass over every triangle. Without them
    (degenerate triangles dropped, another grid, no validated input) only the tiles
    ``todo`` are binned."""
    inputs = cache.inputs
    clean = isinstance(inputs, CheckedInput) and inputs.degenerate_count == 0 \
        and inputs.triangles.shape[0] == t.shape[0]
    key = bins_key(grid, t.shape[0])
    bins = cache.bins
    if len(todo) == grid.tile_count:
        start, items = bin_triangles(grid, v, t, grid.border)
    elif clean and bins is not None and bins[0] == key and inputs.moved_tris is not None \
            and bins[1] == inputs.generation - 1:
        start, items = rebin(grid, v, t, bins[2], bins[3], inputs.moved_tris,
                             inputs.moved_old_xy)
    else:
        cache.bins = None
        return bin_triangles(grid, v, t, grid.border, todo)
    cache.bins = (key, inputs.generation, start, items) if clean else None
    return start, items


class _TileJob(NamedTuple):
    """What every tile of one bake reads (shared by the threads, inherited by forked
    worker processes)."""

    v: np.ndarray
    t: np.ndarray
    walk: np.ndarray
    settings: BakeSettings
    grid: TileGrid
    start: np.ndarray
    items: np.ndarray
    raster: Raster
    volumes: tuple
    area_names: list | None
    limit: MemoryLimit  # read once a bake (not per tile: it reads /proc and rlimits)
    cores: SharedCores | None = None  # a bake of every tile: the rasterised cores
    cfg_template: tuple | None = None  # tile_config_template
    user_areas: bool = False  # volumes mark user areas on the spans (``core.areas``)
    walk_args: tuple = ()  # the constant arguments of _tile_walkable (tile_kernel_args)
    mesh_args: tuple = ()  # of _tile_mesh, between the grid's size and its corner


def tile_kernel_args(settings: BakeSettings, grid: TileGrid, cfg) -> tuple[tuple, tuple]:
    """The arguments every tile of a bake passes to :func:`_tile_walkable` and
    :func:`_tile_mesh` (``cfg``: a tile's config; they depend on the settings only)."""
    sh = cfg.stance_heights
    walk_args = (bool(settings.multi_stance), int(sh[0]), int(sh[1]), int(sh[2]),
                 int(cfg.walkable_radius))
    b, size = grid.border, grid.size
    mesh_args = (b, b, b + size, b + size, STRIP_CELLS, int(cfg.walkable_radius) + 2,
                 int(cfg.min_region_area), settings.partition == "watershed",
                 int(cfg.merge_region_area), MAX_TILE_REGIONS,
                 float(cfg.max_simplification_error), int(cfg.max_edge_len),
                 int(cfg.max_verts_per_poly), POLY_WELD_TOLERANCE, float(cfg.cs),
                 float(cfg.ch), float(cfg.detail_sample_dist),
                 float(max(cfg.detail_sample_max_error, 0.0)))
    return walk_args, mesh_args


def _bake_tile(job: _TileJob, k: int, stage):
    """Tile k alone: (k, its stage counts or None when it has no triangles, its TilePart or
    None when it has no polygons, stage times in ms).

    The stages of ``stages.run_stages`` in three calls a tile (each pays the kernel call,
    and on threads a hand-over of the GIL): the grid (:func:`_tile_grid` from the shared
    cores, or rasterised, filtered and compacted whole), its stances and erosion
    (:func:`_tile_walkable`), then regions to detail mesh (:func:`_tile_mesh`). Progress
    marks ``rasterize`` (the grid up to its erosion) and ``regions`` (the rest)."""
    from .stages import _run

    grid, settings = job.grid, job.settings
    ids = job.items[job.start[k]:job.start[k + 1]]
    tile_ms: dict = {}
    if ids.size == 0:
        stage("empty", 0)
        return k, None, None, tile_ms
    n_tris = int(ids.size)
    cfg = tile_config(settings, grid, k, grid.border, n_tris, job.limit, job.cfg_template)
    walk_args = job.walk_args
    t0 = stage("rasterize", 0)
    if job.cores is not None:
        # the grid assembled from the shared cores (SharedCores: it checks the memory of
        # rasterising a core)
        try:
            pieces = job.cores.acquire(k, cfg)
            out = _run("rasterize", settings, _tile_grid, *pieces, cfg.width, cfg.height,
                       job.cores.filters[1], *walk_args)
        finally:
            job.cores.release(k)
        index, count, span_y, span_h, area, con, sx, sy, n_solid = out
        spans = int(n_solid)
        _check_tile_memory(job, cfg, n_tris, spans)
    else:
        from . import compact, filters

        tt = np.ascontiguousarray(job.t[ids])
        bound = raster_span_bound(job.v, tt, cfg.cs)
        check_memory(settings, cfg.width * cfg.height * 4 + bound * RASTER_BYTES_PER_SPAN,
                     f"rasterising {n_tris:,} triangles (up to {bound:,} spans) into "
                     f"{_grid_text(cfg)}", job.limit)
        hf = _run("rasterize", settings, job.raster.rasterize, job.v, tt,
                  np.ascontiguousarray(job.walk[ids]), cfg)
        del tt
        spans = int(hf.span_min.shape[0])
        _check_tile_memory(job, cfg, n_tris, spans)
        filters.filter_heightfield(hf, cfg.walkable_height, cfg.walkable_climb,
                                   settings.filter_low_hanging_obstacles,
                                   settings.filter_ledge_spans,
                                   settings.filter_low_height_spans)
        chf = _run("compact", settings, compact.build_compact_heightfield, hf,
                   cfg.walkable_height, cfg.walkable_climb, True)
        del hf
        _tile_walkable(chf.span_h, chf.span_area, chf.span_con, chf.span_x, chf.span_cy,
                       chf.width, chf.height, chf.cell_index, chf.cell_count, *walk_args)
        index, count, span_y, span_h = chf.cell_index, chf.cell_count, chf.span_y, chf.span_h
        area, con, sx, sy = chf.span_area, chf.span_con, chf.span_x, chf.span_cy
    if job.user_areas:
        from . import areas as areas_mod
        from .stage_data import CompactHeightfield

        areas_mod.mark_spans(CompactHeightfield(
            width=cfg.width, height=cfg.height, bmin=cfg.bmin, cs=cfg.cs, ch=cfg.ch,
            walkable_height=cfg.walkable_height, walkable_climb=cfg.walkable_climb,
            cell_index=index, cell_count=count, span_y=span_y, span_h=span_h,
            span_area=area, span_con=con, span_x=sx, span_cy=sy), job.volumes,
            job.area_names)
    t1 = stage("regions", 5)
    tile_ms["tile_grid"] = (t1 - t0) * 1000.0
    n_regions, n_contours, pverts, polys, preg, parea, dmeshes, dverts, dtris = _run(
        "regions", settings, _tile_mesh, index, count, span_y, area, con, sx, sy, cfg.width,
        cfg.height, *job.mesh_args, cfg.bmin)
    tile_ms["tile_mesh"] = (time.perf_counter() - t1) * 1000.0
    if n_regions > MAX_TILE_REGIONS:
        raise SettingsError("tile_size", f"a tile of {grid.size} cells has {n_regions:,} regions, "
                                         f"more than the {MAX_TILE_REGIONS:,} a tile holds; "
                                         f"lower tile_size")
    tile_stats = {"spans": spans, "compact_spans": int(span_y.shape[0]),
                  "regions": int(n_regions), "contours": int(n_contours)}
    if polys.shape[0] == 0:
        return k, tile_stats, None, tile_ms
    ox, oy = grid.origin(k, grid.border)
    verts = pverts.astype(np.int64) + np.array([ox, oy, 0], np.int64)
    part = TilePart(k, verts, polys, preg, parea, dmeshes, dverts, dtris)
    return k, tile_stats, part, tile_ms


def _grid_text(cfg) -> str:
    return f"a {cfg.width:,} x {cfg.height:,} cell grid at cell_size {cfg.cs:g}"


def _check_tile_memory(job: _TileJob, cfg, n_tris: int, spans: int) -> None:
    """The memory check of a tile's grid once its span count is known (run_stages')."""
    need = estimate_bake_bytes(cfg.width, cfg.height, n_tris, spans,
                               job.settings.links_enabled)
    if need > job.limit.available:
        check_memory(job.settings, need, f"{_grid_text(cfg)} with {spans:,} spans",
                     job.limit)


def tile_parallel_mode(n_tiles: int) -> str:
    """How the tiles of a bake run: ``NAVJUMP_TILE_PARALLEL`` (serial, threads,
    processes) if set, else on threads when there are two tiles or more and
    ``parallel.worker_count()`` is at least 2, else serial.

    The rule, from paired runs on the 2-core machine (docs/tiles.md): since the contour,
    polygon, detail and rasterise kernels release the GIL, two threads bake the
    1 M-triangle dungeon (540 tiles of 128) in 0.58x the serial wall time and nav_test.obj
    (18 tiles of 64) in 0.71x, at the same CPU time (nearly idle machine,
    ``scripts/bench_tile_threads.py``); under a full machine (load 4 on 2 cores) they were
    even (1.0-1.1x). Forked processes are never the default: forking
    a process that runs Blender, or holds other threads, is not safe."""
    import os

    from .parallel import worker_count

    mode = os.environ.get("NAVJUMP_TILE_PARALLEL", "").strip().lower()
    if n_tiles < 2:
        return "serial"
    if mode in ("serial", "threads", "processes"):
        return mode
    return "threads" if worker_count() >= 2 else "serial"


# the job a forked worker process bakes tiles of (set before the pool forks)
_FORK_JOB: _TileJob | None = None


def _bake_tile_in_worker(k: int):
    job = _FORK_JOB
    assert job is not None, "the tile job is set before the pool forks"
    return _bake_tile(job, k, _no_progress)


def _run_tiles(job: _TileJob, todo: list[int], mode: str, progress):
    """Yield each tile's result (in ``todo`` order, on threads as they complete); progress
    per tile (``tile 3/16: ...``) and cancel between tiles (a BakeCancelled from
    ``progress`` stops the workers)."""
    global _FORK_JOB
    n = len(todo)
    if mode == "serial":
        for n_done, k in enumerate(todo):
            yield _bake_tile(job, k, _tile_progress(progress, n_done, n))
        return
    from .parallel import worker_count

    workers = max(1, min(worker_count(), n))
    if mode == "threads":
        yield from _run_on_threads(job, todo, workers, progress)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _FORK_JOB = job
    pool = ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context("fork"))
    futures = [pool.submit(_bake_tile_in_worker, k) for k in todo]
    try:
        for n_done, future in enumerate(futures):
            if progress is not None:
                progress(f"tile {n_done + 1}/{n}: baking", 0.9 * n_done / n)
            yield future.result()
    finally:
        for future in futures:
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        _FORK_JOB = None


def _no_progress(name, i):
    return time.perf_counter()


def _run_on_threads(job: _TileJob, todo: list[int], workers: int, progress):
    """The tiles on ``workers`` threads, the calling thread one of them; each result as it
    completes, progress (and a cancel) on the calling thread between tiles.

    The tiles are cut into ``ceil(workers / 2)`` runs of consecutive tiles, each baked by
    two threads from its two ends towards the middle: both threads of a run stay busy to
    its last tile, and as neighbours share cores (:class:`SharedCores`) the two ends
    rarely wait for a core the other is computing (two threads baking tiles side by side
    would, at every tile). The calling thread bakes the first run from its front and
    reports the tiles the others completed meanwhile after each of its own (it is not
    woken for every tile); once its run is done it waits for the rest."""
    import queue

    n = len(todo)
    n_runs = -(-workers // 2)
    bounds = [n * r // n_runs for r in range(n_runs + 1)]
    ends = [[bounds[r], bounds[r + 1]] for r in range(n_runs)]  # next front, past back
    lock = threading.Lock()
    stop = threading.Event()
    results: queue.SimpleQueue = queue.SimpleQueue()

    def take(run: int, front: bool):
        with lock:
            lo, hi = ends[run]
            if lo >= hi or stop.is_set():
                return None
            if front:
                ends[run][0] = lo + 1
                return todo[lo]
            ends[run][1] = hi - 1
            return todo[hi - 1]

    def work(run: int, front: bool):
        try:
            while (k := take(run, front)) is not None:
                results.put(_bake_tile(job, k, _no_progress))
        except BaseException as exc:  # handed to the calling thread, which raises it
            stop.set()
            results.put(exc)

    # worker w bakes run w // 2 from its front (w even) or its back; w = 0 is this thread
    threads = [threading.Thread(target=work, args=(w // 2, w % 2 == 0),
                                name=f"navjump-tile-{w}", daemon=True)
               for w in range(1, min(workers, 2 * n_runs))]
    for th in threads:
        th.start()
    done = 0
    try:
        own = True  # this thread still has tiles of its own
        while done < n:
            if own:
                k = take(0, True)
                if k is None:
                    own = False
                    continue
                mine = _bake_tile(job, k, _no_progress)
                # the tiles the other threads completed meanwhile, then this thread's
                items = []
                while not results.empty():
                    items.append(results.get())
                items.append(mine)
            else:
                items = [results.get()]
            for item in items:
                if isinstance(item, BaseException):
                    raise item
                if progress is not None:
                    progress(f"tile {done + 1}/{n}: baking", 0.9 * done / n)
                done += 1
                yield item
    finally:
        stop.set()
        for th in threads:
            th.join()


def _weld(verts: np.ndarray, tol: int) -> tuple[np.ndarray, np.ndarray]:
    """Weld vertices at the same cell corner whose heights differ by at most ``tol``
    (neighbouring groups chained): returns (index of each vertex's weld, welded verts)."""
    order = np.lexsort((verts[:, 2], verts[:, 1], verts[:, 0]))
    s = verts[order]
    new = np.ones(s.shape[0], np.bool_)
    new[1:] = ((s[1:, 0] != s[:-1, 0]) | (s[1:, 1] != s[:-1, 1])
               | (s[1:, 2] - s[:-1, 2] > tol))
    group = np.cumsum(new) - 1
    remap = np.empty(verts.shape[0], np.int64)
    remap[order] = group
    return remap, s[new]


def merge_tiles(parts: list[TilePart], grid: TileGrid, settings: BakeSettings) -> NavMesh:
    """One NavMesh from the tiles' polygons: tile-edge vertices welded, neighbours found
    across tile edges, regions numbered per tile, ``polygon_tile`` filled."""
    from .polymesh import build_adjacency

    nvp = int(settings.verts_per_poly)
    if not parts:
        nm = empty_navmesh(nvp)
        nm.settings = settings.to_dict()
        return nm
    # each part's arrays concatenated, then offset row by row by its part's bases
    n_polys = np.array([p.polys.shape[0] for p in parts], np.int64)
    vbase = np.cumsum([0] + [p.verts.shape[0] for p in parts])
    allv = np.concatenate([p.verts for p in parts])
    polys = np.concatenate([p.polys for p in parts]).astype(np.int64)
    polys = np.where(polys >= 0, polys + np.repeat(vbase[:-1], n_polys)[:, None], -1)
    remap, welded = _weld(allv, WELD_HEIGHT_TOLERANCE)
    polys = np.where(polys >= 0, remap[np.maximum(polys, 0)], -1)
    neighbours = build_adjacency(polys, max(welded.shape[0], 1))
    reg_base = np.cumsum([0] + [int(p.regs.max(initial=0)) for p in parts])
    regs = (np.concatenate([p.regs for p in parts]).astype(np.int64)
            + np.repeat(reg_base[:-1], n_polys))
    areas = np.concatenate([p.areas for p in parts]).astype(np.uint8)
    tile = np.repeat(np.array([p.tile for p in parts], np.int32), n_polys)
    dv_base = np.cumsum([0] + [p.dverts.shape[0] for p in parts])
    dt_base = np.cumsum([0] + [p.dtris.shape[0] for p in parts])
    dmeshes = np.concatenate([p.dmeshes for p in parts]).astype(np.int64)
    dmeshes[:, 0] += np.repeat(dv_base[:-1], n_polys)
    dmeshes[:, 2] += np.repeat(dt_base[:-1], n_polys)
    dmeshes = dmeshes.astype(np.int32)
    dverts = np.concatenate([p.dverts for p in parts])
    dtris = np.concatenate([p.dtris for p in parts]).astype(np.int32)
    verts = np.empty(welded.shape, np.float64)
    verts[:, 0] = grid.bmin[0] + welded[:, 0] * grid.cs
    verts[:, 1] = grid.bmin[1] + welded[:, 1] * grid.cs
    verts[:, 2] = grid.bmin[2] + welded[:, 2] * float(settings.cell_height)
    # the first n detail vertices of a polygon are its own vertices: take the welded ones
    # (one position for a vertex shared by two tiles)
    if dverts.shape[0]:
        p_idx, slot = np.nonzero(polys >= 0)
        dverts[dmeshes[p_idx, 0] + slot] = verts[polys[p_idx, slot]]
    areas_i16 = areas.astype(np.int16)
    return NavMesh(
        vertices=verts,
        polygons=polys.astype(np.int32),
        neighbours=neighbours.astype(np.int32),
        polygon_area=areas,
        polygon_region=regs.astype(np.int32),
        polygon_stance=(np.maximum(areas_i16, 1) - 1).astype(np.int8),
        detail_meshes=dmeshes,
        detail_vertices=dverts,
        detail_triangles=dtris,
        polygon_tile=tile,
        settings=settings.to_dict(),
    )


# ------------------------------------------------------------------------------ links
def link_border_cells(settings: BakeSettings) -> int:
    """Cells the link window reaches past a tile: the jump reach, the agent radius and the
    tile border (collision tests and landing spots within reach of a start in the tile)."""
    reach = max(settings.max_jump_distance, 0.0) + settings.agent_radius
    return tile_border_cells(settings) + int(math.ceil(reach / settings.cell_size)) + 2


def build_tile_links(nm: NavMesh, settings: BakeSettings, v, t, walk, bmin, bmax,
                     progress, cache: TileCache | None = None) -> dict:
    """Jump links of a tiled bake, tile by tile (see module doc); fills nm's link arrays
    and returns the generator's summary summed over tiles.

    With a ``cache`` whose last bake re-baked only some tiles (``cache.rebaked``), only the
    tiles whose link window reaches into a re-baked tile run the generator again; the
    others keep their cached links (their window saw neither triangles nor polygons that
    changed)."""
    from . import compact, filters, rasterize
    from . import links as links_mod
    from .navmesh import empty_links

    grid = tile_grid(settings, bmin, bmax)
    border = link_border_cells(settings)
    side = grid.size + 2 * border
    if cache is None:
        cache = TileCache()
        cache.rebaked = list(range(grid.tile_count))
    if len(cache.rebaked) == grid.tile_count:
        cache.links.clear()
        cache.link_info.clear()
        todo = list(range(grid.tile_count))
    else:
        todo = _tiles_reaching(grid, border, cache.rebaked)
    # first polygon of each tile in nm (the merged mesh lists polygons tile by tile)
    tiles_present = set(np.unique(nm.polygon_tile).tolist())
    first = np.zeros(grid.tile_count + 1, np.int64)
    np.add.at(first, nm.polygon_tile.astype(np.int64) + 1, 1)
    first = np.cumsum(first)
    start, items = bin_triangles(grid, v, t, border, todo)
    # each polygon's box in level cells, to pick the polygons of a window
    pv = np.where(nm.polygons[..., None] >= 0, nm.vertices[np.maximum(nm.polygons, 0)],
                  np.nan)
    pmin = np.floor((np.nanmin(pv[..., :2], axis=1) - grid.bmin[:2]) / grid.cs)
    pmax = np.floor((np.nanmax(pv[..., :2], axis=1) - grid.bmin[:2]) / grid.cs)
    del pv
    for n_done, k in enumerate(todo):
        if progress is not None:
            progress(f"tile {n_done + 1}/{len(todo)}: links", 0.9 + 0.1 * n_done / len(todo))
        cache.links.pop(k, None)
        cache.link_info.pop(k, None)
        if k not in tiles_present:
            continue
        ids = items[start[k]:start[k + 1]]
        cfg = tile_config(settings, grid, k, border, int(ids.size))
        ox, oy = grid.origin(k, border)
        inside = ((pmax[:, 0] >= ox) & (pmin[:, 0] < ox + side)
                  & (pmax[:, 1] >= oy) & (pmin[:, 1] < oy + side))
        # the window's grid must hold every polygon the generator looks at
        lo = np.minimum(pmin[inside].min(axis=0), [ox, oy]).astype(np.int64) - 1
        hi = np.maximum(pmax[inside].max(axis=0) + 1, [ox + side, oy + side]).astype(np.int64) + 1
        wbmin = np.array([grid.bmin[0] + lo[0] * grid.cs, grid.bmin[1] + lo[1] * grid.cs,
                          grid.bmin[2]])
        wbmax = np.array([grid.bmin[0] + hi[0] * grid.cs, grid.bmin[1] + hi[1] * grid.cs,
                          grid.bmax[2]])
        width, height = int(hi[0] - lo[0]), int(hi[1] - lo[1])
        # the link parameters hold the grid's origin and size: derived again for the window
        cfg = dataclasses.replace(
            cfg, bmin=wbmin, bmax=wbmax, width=width, height=height,
            links=link_params(settings, cfg.cs, cfg.ch, wbmin, width, height,
                              cfg.walkable_climb))
        tt = np.ascontiguousarray(t[ids])
        hf = rasterize.rasterize_triangles(v, tt, np.ascontiguousarray(walk[ids]), cfg)
        filters.filter_heightfield(hf, cfg.walkable_height, cfg.walkable_climb,
                                   settings.filter_low_hanging_obstacles,
                                   settings.filter_ledge_spans, settings.filter_low_height_spans)
        chf = compact.build_compact_heightfield(hf, cfg.walkable_height, cfg.walkable_climb)
        sel = np.nonzero(inside)[0]
        sub = sub_navmesh(nm, sel)
        part = links_mod.build_links(sub, hf, chf, cfg, settings, v, tt)
        del hf, chf, tt
        cache.link_info[k] = {key: int(part.get(key, 0))
                              for key in ("border_edges", "border_edges_linked", "samples")}
        cache.link_info[k]["messages"] = list(part.get("messages", []))
        if sub.link_count == 0:
            continue
        # keep the links whose start segment's middle lies in this tile (each tile's pass
        # sees the whole ledge near its edges, so exactly one tile keeps each link)
        mid = (sub.link_start[:, 0, :2] + sub.link_start[:, 1, :2]) * 0.5
        cell = np.floor((mid - grid.bmin[:2]) / grid.cs).astype(np.int64)
        tx, ty = k % grid.tiles_x, k // grid.tiles_x
        col = np.clip(cell[:, 0] // grid.size, 0, grid.tiles_x - 1)
        row = np.clip(cell[:, 1] // grid.size, 0, grid.tiles_y - 1)
        keep = (col == tx) & (row == ty)
        mine = {}
        for name in empty_links():
            arr = getattr(sub, name)[keep]
            if name in ("link_start_poly", "link_end_poly"):
                # kept as (tile, index in the tile): a re-bake of another tile moves it
                glob = sel[arr]
                tile = nm.polygon_tile[glob].astype(np.int64)
                arr = np.stack([tile, glob - first[tile]], axis=1)
            mine[name] = arr
        cache.links[k] = mine
    cache.relinked = list(todo)
    found: dict[str, list] = {name: [] for name in empty_links()}
    for k in sorted(cache.links):
        for name, arr in cache.links[k].items():
            if name in ("link_start_poly", "link_end_poly"):
                arr = (first[arr[:, 0]] + arr[:, 1]).astype(np.int32)
            found[name].append(arr)
    for name, empty in empty_links().items():
        setattr(nm, name, np.concatenate([empty, *found[name]]).astype(empty.dtype))
    _dedupe_across_tiles(nm, settings)
    info: dict = {"messages": [], "border_edges": 0, "border_edges_linked": 0,
                  "samples": 0, "tiles": len(cache.link_info)}
    for k in sorted(cache.link_info):
        part = cache.link_info[k]
        for key in ("border_edges", "border_edges_linked", "samples"):
            info[key] += part[key]
        for msg in part["messages"]:
            if msg not in info["messages"]:
                info["messages"].append(msg)
    counts = {kind: int((nm.link_kind == i).sum())
              for i, kind in enumerate(GENERATED_LINK_KINDS)}
    info["counts"] = counts
    return info


def _dedupe_across_tiles(nm: NavMesh, settings: BakeSettings) -> None:
    """Drop the near-duplicates among the links the tiles kept (``links_search.keep_distinct``,
    the generator's own rule and order). Each tile
    de-duplicates its own window, but of a bidirectional link found from both sides two
    tiles may keep either way: a link from a start on a tile edge in one, its way back in
    the other."""
    from .links_search import keep_distinct

    if nm.link_count < 2:
        return
    keep = keep_distinct(nm.link_start, nm.link_end, nm.link_bidirectional,
                         max(float(settings.agent_radius), float(settings.cell_size)))
    if keep.all():
        return
    from .navmesh import empty_links

    for name in empty_links():
        setattr(nm, name, getattr(nm, name)[keep])


def _tiles_reaching(grid: TileGrid, border: int, rebaked) -> list[int]:
    """Tiles whose window (the tile and ``border`` cells around it, one more for the
    polygon boxes' rounding) overlaps a tile of ``rebaked``."""
    reach = -(-(border + 1) // grid.size)
    out = set()
    for j in rebaked:
        jx, jy = j % grid.tiles_x, j // grid.tiles_x
        for ty in range(max(jy - reach, 0), min(jy + reach, grid.tiles_y - 1) + 1):
            for tx in range(max(jx - reach, 0), min(jx + reach, grid.tiles_x - 1) + 1):
                out.add(tx + ty * grid.tiles_x)
    return sorted(out)


def sub_navmesh(nm: NavMesh, sel: np.ndarray) -> NavMesh:
    """The polygons ``sel`` of nm as a NavMesh of their own (neighbours outside dropped)."""
    pos = np.full(nm.polygon_count, -1, np.int64)
    pos[sel] = np.arange(sel.size)
    polys = nm.polygons[sel]
    used = np.unique(polys[polys >= 0])
    vpos = np.full(nm.vertices.shape[0], -1, np.int64)
    vpos[used] = np.arange(used.size)
    nb = nm.neighbours[sel]
    dm = nm.detail_meshes[sel].astype(np.int64)
    vcount, tcount = dm[:, 1], dm[:, 3]
    vrows = np.repeat(dm[:, 0], vcount) + _ranks(vcount)
    trows = np.repeat(dm[:, 2], tcount) + _ranks(tcount)
    new_dm = np.stack([np.cumsum(vcount) - vcount, vcount, np.cumsum(tcount) - tcount, tcount],
                      axis=1).astype(np.int32)
    return NavMesh(
        vertices=nm.vertices[used],
        polygons=np.where(polys >= 0, vpos[np.maximum(polys, 0)], -1).astype(np.int32),
        neighbours=np.where(nb >= 0, pos[np.maximum(nb, 0)], -1).astype(np.int32),
        polygon_area=nm.polygon_area[sel],
        polygon_region=nm.polygon_region[sel],
        polygon_stance=nm.polygon_stance[sel],
        detail_meshes=new_dm,
        detail_vertices=nm.detail_vertices[vrows],
        detail_triangles=nm.detail_triangles[trows],
        settings=nm.settings,
    )


def _ranks(counts: np.ndarray) -> np.ndarray:
    from .navmesh import _ranks as ranks

    return ranks(counts)
