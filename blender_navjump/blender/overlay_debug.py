"""Debug layers of the overlay (bpy-free, numpy only): why a place is (not) walkable.

* ``debug_voxels``: every voxel top of the bake (``core.debug.BakeDebug.spans``) as a
  small square, in its stance's colour when walkable, dark red when not (steep, an
  obstacle, filtered, too low, or eroded away near a wall or ledge).
* ``debug_regions``: the walkable voxel tops in one colour per region id.
* ``debug_contours``: the simplified region outlines, darker than their region's colour.
* ``debug_polygons``: every navmesh polygon filled in a colour of its own (polygon id).

The first three need the bake's debug data (the "Debug Data" bake setting); the polygon
ids need only the navmesh. Each is built once per bake, when first shown, as arrays
(no Python loop per voxel, region or polygon), like :mod:`.overlay_batches`.
"""

from __future__ import annotations

import numpy as np

from ..core.kinds import STANCE_COLORS, STANCE_NAMES
from . import overlay_batches as ob

DEBUG_LAYERS = ("debug_voxels", "debug_regions", "debug_contours", "debug_polygons")
# Layers drawn from the bake's debug data (the others need only the navmesh).
BAKE_DEBUG_LAYERS = frozenset({"debug_voxels", "debug_regions", "debug_contours"})
DEBUG_LABELS = {"debug_voxels": "Voxel Tops", "debug_regions": "Regions",
                "debug_contours": "Contours", "debug_polygons": "Polygon Ids"}

UNWALKABLE_COLOR = (0.5, 0.06, 0.04, 1.0)  # dark red: a voxel top nobody walks on
VOXEL_ALPHA = 1.0
POLYGON_ALPHA = 0.8
VOXEL_FILL = 0.8        # side of a voxel square, as a fraction of the cell size
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


def _squares(centres: np.ndarray, half: float, colors: np.ndarray) -> ob.LayerGeometry:
    """Flat squares (two triangles each) around ``centres`` (N, 3), one colour each."""
    corners = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, -1, 0], [1, 1, 0],
                        [-1, 1, 0]], np.float64) * half
    pos = (centres[:, None, :] + corners[None]).reshape(-1, 3)
    col = np.repeat(np.asarray(colors, np.float32), 6, axis=0)
    return ob.LayerGeometry(np.ascontiguousarray(pos, np.float32),
                            np.ascontiguousarray(col, np.float32))


def _span_centres(debug, mask) -> np.ndarray:
    sp = debug.spans[mask]
    return np.stack([sp["x"], sp["y"], sp["z"] + VOXEL_LIFT], axis=1).astype(np.float64)


def build_voxel_layer(debug) -> ob.LayerGeometry:
    sp = debug.spans
    mask = np.ones(sp.shape[0], bool)
    return _squares(_span_centres(debug, mask), 0.5 * VOXEL_FILL * debug.cell_size,
                    voxel_colors(sp["area"]))


def build_region_layer(debug) -> ob.LayerGeometry:
    sp = debug.spans
    mask = (sp["area"] > 0) & (sp["region"] > 0)
    return _squares(_span_centres(debug, mask), 0.5 * VOXEL_FILL * debug.cell_size,
                    id_colors(sp["region"][mask]))


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
    raise ValueError(f"unknown debug layer {name!r}; choose from {', '.join(DEBUG_LAYERS)}")


def visible_debug_layers(pg) -> set[str]:
    """Debug layers switched on in the overlay settings (``show_<layer name>``)."""
    if pg is None or not getattr(pg, "show_overlay", False):
        return set()
    return {name for name in DEBUG_LAYERS if getattr(pg, f"show_{name}", False)}
