"""Debug layers of the overlay (bpy-free, numpy only): why a place is (not) walkable.

* ``debug_voxels``: every voxel top of the bake (``core.debug.BakeDebug.spans``), in its
  stance's colour when walkable, dark red when not (steep, an obstacle, filtered, too
  low, or eroded away near a wall or ledge). Tops side by side in a row with the same
  height and colour are drawn as one strip (80 % of a cell wide), not one square each.
* ``debug_regions``: the walkable voxel tops in one colour per region id (strips too).
* ``debug_contours``: the simplified region outlines, darker than their region's colour.
* ``debug_polygons``: every navmesh polygon filled in a colour of its own (polygon id).
* ``debug_link_rejects``: the link candidates the link generator refused
  (``BakeDebug.link_rejects``), in the colour of their reason (``REJECT_COLORS``): a
  square at the take-off point, a line to the candidate landing, and a larger square
  where a blocked trajectory first meets the level.

All but the polygon ids need the bake's debug data (the "Debug Data" bake setting); the polygon
ids need only the navmesh. Each is built once per bake, when first shown, as arrays
(no Python loop per voxel, region or polygon), like :mod:`.overlay_geometry`.
"""

from __future__ import annotations

import numpy as np

from ..core.debug import REJECT_BLOCKED, REJECT_REASONS
from ..core.kinds import STANCE_COLORS, STANCE_NAMES
from . import overlay_geometry as ob

DEBUG_LAYERS = ("debug_voxels", "debug_regions", "debug_contours", "debug_polygons",
                "debug_link_rejects")
# Layers drawn from the bake's debug data (the others need only the navmesh).
BAKE_DEBUG_LAYERS = frozenset({"debug_voxels", "debug_regions", "debug_contours",
                               "debug_link_rejects"})
DEBUG_LABELS = {"debug_voxels": "Voxel Tops", "debug_regions": "Regions",
                "debug_contours": "Contours", "debug_polygons": "Polygon Ids",
                "debug_link_rejects": "Refused Links"}
# the colour of each reason a link candidate was refused (core.debug.REJECT_REASONS)
REJECT_COLORS = {"none": (1.0, 1.0, 1.0, 1.0), "too_high": (0.95, 0.2, 0.85, 1.0),
                 "too_far": (1.0, 0.55, 0.0, 1.0), "blocked": (0.95, 0.08, 0.08, 1.0),
                 "too_narrow": (0.95, 0.9, 0.1, 1.0), "no_landing": (0.55, 0.55, 0.55, 1.0)}
REJECT_MARK = 0.12      # half size of the square at a take-off point (m)
REJECT_BLOCK_MARK = 0.2  # half size of the square where a trajectory is blocked (m)
REJECT_WIDTH = 1.5

UNWALKABLE_COLOR = (0.5, 0.06, 0.04, 1.0)  # dark red: a voxel top nobody walks on
VOXEL_ALPHA = 1.0
POLYGON_ALPHA = 0.8
VOXEL_FILL = 0.8        # width of a row of voxel tops, as a fraction of the cell size
VOXEL_LIFT = 0.01       # above the top (m)
CONTOUR_DARKEN = 0.55
CONTOUR_WIDTH = 2.5
GOLDEN = 0.6180339887498949


def id_colors(ids, saturation: float = 0.7, value: float = 0.95) -> np.ndarray:
    """(N, 4) float32 RGBA: a colour per integer id, hues spread by the golden ratio so
    that consecutive ids (neighbouring regions and polygons) differ clearly."""
    ids = np.asarray(ids, np.float64).reshape(-1)
    h = np.mod(ids * GOLDEN + 0.13, 1.0) * 6.0
    i = np.floor(h).astype(np.int64) % 6
    f = h - np.floor(h)
    v, s = value, saturation
    p = np.full_like(f, v * (1 - s))
    q = v * (1 - s * f)
    t = v * (1 - s * (1 - f))
    vv = np.full_like(f, v)
    r = np.choose(i, [vv, q, p, p, t, vv])
    g = np.choose(i, [t, vv, vv, q, p, p])
    b = np.choose(i, [p, p, t, vv, vv, q])
    return np.ascontiguousarray(np.stack([r, g, b, np.ones_like(r)], axis=1), np.float32)


def voxel_colors(area) -> np.ndarray:
    """(N, 4) colour of each voxel top by its area id (0 not walkable, else stance + 1)."""
    area = np.asarray(area, np.int64).reshape(-1)
    table = np.array([UNWALKABLE_COLOR] + [STANCE_COLORS[s] for s in STANCE_NAMES]
                     + [ob.OUTLINE_COLOR], np.float32)
    index = np.where((area >= 0) & (area <= len(STANCE_NAMES)), area, len(STANCE_NAMES) + 1)
    out = table[index]
    out[:, 3] = VOXEL_ALPHA
    return out


def _row_runs(spans, key: np.ndarray, cell: float):
    """Runs of voxel tops side by side along x (same row y, same height z, same ``key``):
    (first, last) span index of each run, in ``spans`` order after sorting. One rectangle
    per run instead of one square per top: a flat floor of n x n cells costs n
    rectangles, which keeps the layer cheap to draw on large levels."""
    ix = np.rint((spans["x"].astype(np.float64) - float(spans["x"].min())) / cell)
    iy = np.rint((spans["y"].astype(np.float64) - float(spans["y"].min())) / cell)
    z = spans["z"]
    order = np.lexsort((ix, z, iy, key))
    ix, iy, z, key = ix[order], iy[order], z[order], key[order]
    new = np.ones(order.shape[0], bool)
    new[1:] = (key[1:] != key[:-1]) | (iy[1:] != iy[:-1]) | (z[1:] != z[:-1]) \
        | (ix[1:] != ix[:-1] + 1)
    first = np.nonzero(new)[0]
    last = np.append(first[1:] - 1, order.shape[0] - 1)
    return order[first], order[last]


def _strips(spans, key: np.ndarray, cell: float, colors_of_key) -> ob.LayerGeometry:
    """Rectangles over runs of voxel tops (see :func:`_row_runs`), inset by
    ``1 - VOXEL_FILL`` of a cell on every side so rows, heights and colour changes show."""
    if spans.shape[0] == 0:
        return ob.LayerGeometry()
    first, last = _row_runs(spans, key, cell)
    half = 0.5 * VOXEL_FILL * cell
    x0 = spans["x"][first].astype(np.float64) - half
    x1 = spans["x"][last].astype(np.float64) + half
    y = spans["y"][first].astype(np.float64)
    z = spans["z"][first].astype(np.float64) + VOXEL_LIFT
    corners = np.stack([np.stack([x0, y - half, z], 1), np.stack([x1, y - half, z], 1),
                        np.stack([x1, y + half, z], 1), np.stack([x0, y - half, z], 1),
                        np.stack([x1, y + half, z], 1), np.stack([x0, y + half, z], 1)],
                       axis=1)  # (R, 6, 3)
    col = np.repeat(np.asarray(colors_of_key(key[first]), np.float32), 6, axis=0)
    return ob.LayerGeometry(np.ascontiguousarray(corners.reshape(-1, 3), np.float32),
                            np.ascontiguousarray(col, np.float32))


def build_voxel_layer(debug) -> ob.LayerGeometry:
    sp = debug.spans
    return _strips(sp, sp["area"].astype(np.int64), debug.cell_size, voxel_colors)


def build_region_layer(debug) -> ob.LayerGeometry:
    sp = debug.spans
    mask = (sp["area"] > 0) & (sp["region"] > 0)
    return _strips(sp[mask], sp["region"][mask].astype(np.int64), debug.cell_size, id_colors)


def build_contour_layer(debug, lift: float) -> ob.LayerGeometry:
    """Each contour as a closed loop of segments, in its region's darkened colour."""
    start = np.asarray(debug.contour_start, np.int64)
    pts = np.asarray(debug.contour_points, np.float64)
    counts = np.diff(start)
    keep = counts >= 2
    n = int(counts[keep].sum())
    if n == 0:
        return ob.LayerGeometry()
    owner = np.repeat(np.nonzero(keep)[0], counts[keep])
    first = np.repeat(start[:-1][keep], counts[keep])
    rank = np.arange(n) - np.repeat(np.cumsum(counts[keep]) - counts[keep], counts[keep])
    a = first + rank
    b = first + (rank + 1) % np.repeat(counts[keep], counts[keep])
    up = np.array([0.0, 0.0, lift])
    color = id_colors(debug.contour_region[owner])
    color[:, :3] *= CONTOUR_DARKEN
    positions = ob._pairs(pts[a] + up, pts[b] + up)
    return ob.LayerGeometry(lines=[ob.LineSet(np.ascontiguousarray(positions, np.float32),
                                              np.repeat(color, 2, axis=0), CONTOUR_WIDTH)])


def build_polygon_layer(navmesh, lift: float) -> ob.LayerGeometry:
    """Every valid polygon's surface triangles in the colour of its id."""
    _verts, _polys, keep = ob.valid_polygons(navmesh, [])
    rows = np.nonzero(keep)[0]
    if rows.size == 0:
        return ob.LayerGeometry()
    tris, owner = ob.navmesh_triangles(navmesh, rows, [])
    pos = (tris + np.array([0.0, 0.0, lift])).reshape(-1, 3)
    color = id_colors(owner)
    color[:, 3] = POLYGON_ALPHA
    return ob.LayerGeometry(np.ascontiguousarray(pos, np.float32),
                            np.repeat(color, 3, axis=0))


def reject_colors(reason) -> np.ndarray:
    """(N, 4) float32 colour of each refusal by its reason code."""
    table = np.array([REJECT_COLORS[r] for r in REJECT_REASONS], np.float32)
    reason = np.asarray(reason, np.int64).reshape(-1)
    return table[np.clip(reason, 0, len(REJECT_REASONS) - 1)]


def _squares(centres: np.ndarray, half: float, colors: np.ndarray):
    """Horizontal squares (two triangles each) around ``centres`` (N, 3)."""
    c = np.asarray(centres, np.float64).reshape(-1, 3)
    dx = np.array([half, 0.0, 0.0])
    dy = np.array([0.0, half, 0.0])
    a, b, cc, d = c - dx - dy, c + dx - dy, c + dx + dy, c - dx + dy
    pos = np.stack([a, b, cc, a, cc, d], axis=1).reshape(-1, 3)
    return pos, np.repeat(np.asarray(colors, np.float32), 6, axis=0)


def build_reject_layer(debug, lift: float) -> ob.LayerGeometry:
    """Refused link candidates: a square at each take-off point and a line to its
    candidate landing in the reason's colour; a larger square where it is blocked."""
    rej = debug.link_rejects
    if rej.shape[0] == 0:
        return ob.LayerGeometry()
    up = np.array([0.0, 0.0, lift])
    start = np.stack([rej["x"], rej["y"], rej["z"]], axis=1).astype(np.float64) + up
    land = np.stack([rej["tx"], rej["ty"], rej["tz"]], axis=1).astype(np.float64) + up
    color = reject_colors(rej["reason"])
    pos, col = _squares(start, REJECT_MARK, color)
    hit = (rej["reason"] == REJECT_BLOCKED) & np.isfinite(rej["bx"])
    if hit.any():
        block = np.stack([rej["bx"][hit], rej["by"][hit], rej["bz"][hit]],
                         axis=1).astype(np.float64) + up
        bpos, bcol = _squares(block, REJECT_BLOCK_MARK, color[hit])
        pos, col = np.concatenate([pos, bpos]), np.concatenate([col, bcol])
    moved = np.linalg.norm(land - start, axis=1) > 1e-6
    lines = ob.LineSet(np.ascontiguousarray(ob._pairs(start[moved], land[moved]), np.float32),
                       np.ascontiguousarray(np.repeat(color[moved], 2, axis=0), np.float32),
                       REJECT_WIDTH)
    return ob.LayerGeometry(np.ascontiguousarray(pos, np.float32),
                            np.ascontiguousarray(col, np.float32), [lines])


def build_debug_layer(name: str, navmesh, debug, lift: float = 0.05) -> ob.LayerGeometry:
    """One debug layer; empty when its data is missing (no navmesh, no debug data)."""
    if name == "debug_polygons":
        return ob.LayerGeometry() if navmesh is None else build_polygon_layer(navmesh, lift)
    if debug is None:
        return ob.LayerGeometry()
    if name == "debug_voxels":
        return build_voxel_layer(debug)
    if name == "debug_regions":
        return build_region_layer(debug)
    if name == "debug_contours":
        return build_contour_layer(debug, lift)
    if name == "debug_link_rejects":
        return build_reject_layer(debug, lift)
    raise ValueError(f"unknown debug layer {name!r}; choose from {', '.join(DEBUG_LAYERS)}")


def visible_debug_layers(pg) -> set[str]:
    """Debug layers switched on in the overlay settings (``show_<layer name>``)."""
    if pg is None or not getattr(pg, "show_overlay", False):
        return set()
    return {name for name in DEBUG_LAYERS if getattr(pg, f"show_{name}", False)}
