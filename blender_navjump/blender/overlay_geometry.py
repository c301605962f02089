"""Overlay geometry: a NavMesh (and a test path) as per-layer vertex and colour arrays.

Pure numpy, no bpy and no gpu, so it is tested without Blender and the draw callback
only uploads what is built here. Every builder is vectorised over polygons and links: a
100,000-polygon, 10,000-link navmesh is a handful of array operations, never a Python
loop per element.

Layers (``LAYER_NAMES``): ``navmesh`` (polygon outlines, borders thicker), one fill layer
per stance (``stance_stand``...), one layer per link kind (``links_drop``...) and
``path``. Each layer is a :class:`LayerGeometry`: triangles and line sets (pairs of
points, ``LINES`` primitive) with one RGBA colour per vertex.

Link arcs follow the trajectory model of ``core/links_model.py``: a ballistic arc that
rises ``apex`` metres above the take-off point (``link_apex``; 0 is walking off a ledge)
and comes down on the landing point. Its shape does not depend on gravity: with
``a = apex`` and ``dz = z1 - z0``, the height at horizontal fraction ``u`` is
``z0 + 2 sqrt(a) k u - k^2 u^2`` with ``k = sqrt(a) + sqrt(a - dz)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.kinds import (
    FLAG_DROP_START,
    FLAG_JUMP_START,
    FLAG_STANCE_CHANGE,
    LINK_COLORS,
    LINK_KINDS,
    STANCE_COLORS,
    STANCE_NAMES,
)

# ------------------------------------------------------------------ colours (RGBA)
# Stance and link colours come from the one table (core.kinds), shared with the glTF export.
UNATTACHED_COLOR = (1.0, 0.0, 0.0, 1.0)    # a link end on no polygon
OUTLINE_COLOR = (0.02, 0.02, 0.05, 1.0)
BORDER_COLOR = (0.0, 0.0, 0.0, 1.0)
PATH_COLOR = (1.0, 1.0, 1.0, 1.0)
PATH_JUMP_COLOR = (1.0, 0.25, 0.6, 1.0)    # pink: airborne part of the path
PATH_START_COLOR = (0.1, 1.0, 0.3, 1.0)
PATH_GOAL_COLOR = (1.0, 0.15, 0.15, 1.0)
FILL_ALPHA = 0.45
RIBBON_ALPHA = 0.3

STANCE_LAYERS = tuple(f"stance_{s}" for s in STANCE_NAMES)
LINK_LAYERS = tuple(f"links_{k}" for k in LINK_KINDS)
LAYER_NAMES = ("navmesh",) + STANCE_LAYERS + LINK_LAYERS + ("path", "tiles")
# Tile borders of a tiled bake (``show_tiles``): each tile's square, at its lowest polygon.
TILE_BORDER_COLOR = (1.0, 0.85, 0.0, 1.0)
TILE_BORDER_WIDTH = 2.0

# Line widths in pixels.
OUTLINE_WIDTH = 1.0
BORDER_WIDTH = 2.5
LINK_WIDTH = 2.5
MARKER_WIDTH = 3.0
PATH_WIDTH = 4.0

ARC_SEGMENTS = 12
# Links narrower than this are drawn as one arc; wider ones as a ribbon between two arcs.
WIDE_LINK = 0.05
# Jump height used to draw a path's jump when its link is unknown (metres above take-off).
DEFAULT_JUMP_APEX = 0.5


@dataclass
class LineSet:
    positions: np.ndarray  # (2N, 3) float32: N segments, LINES primitive
    colors: np.ndarray     # (2N, 4) float32
    width: float = 1.0

    @property
    def count(self) -> int:
        return int(self.positions.shape[0] // 2)


@dataclass
class LayerGeometry:
    tri_positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float32))
    tri_colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    lines: list[LineSet] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.tri_positions.shape[0] == 0 and all(s.count == 0 for s in self.lines)

    @property
    def vertex_count(self) -> int:
        return int(self.tri_positions.shape[0] + sum(s.positions.shape[0] for s in self.lines))


@dataclass
class OverlayGeometry:
    """All layers of one navmesh, plus what was invalid and left out."""

    layers: dict[str, LayerGeometry]
    issues: list[str]
    bounds: np.ndarray  # (2, 3) min and max corner (zeros when empty)


# ------------------------------------------------------------------ small helpers
def _f32(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


def _colors(rgba, n: int, alpha: float | None = None) -> np.ndarray:
    c = np.array(rgba, np.float32)
    if alpha is not None:
        c[3] = alpha
    return np.ascontiguousarray(np.broadcast_to(c, (n, 4)))


def _pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Interleave segment ends: rows a0, b0, a1, b1, ... (LINES order)."""
    out = np.empty((a.shape[0] * 2, 3), np.float64)
    out[0::2] = a
    out[1::2] = b
    return out


def _lineset(a, b, rgba, width) -> LineSet:
    a = np.asarray(a, np.float64).reshape(-1, 3)
    b = np.asarray(b, np.float64).reshape(-1, 3)
    return LineSet(_f32(_pairs(a, b)), _colors(rgba, 2 * a.shape[0]), width)


def _concat_linesets(sets: list[LineSet], width: float) -> LineSet:
    sets = [s for s in sets if s.count]
    if not sets:
        return LineSet(np.zeros((0, 3), np.float32), np.zeros((0, 4), np.float32), width)
    return LineSet(_f32(np.concatenate([s.positions for s in sets])),
                   _f32(np.concatenate([s.colors for s in sets])), width)


def _array(navmesh, name, dtype, shape_tail, issues) -> np.ndarray | None:
    """A navmesh array with the expected trailing shape, or None (and an issue)."""
    value = getattr(navmesh, name, None)
    try:
        arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError):
        issues.append(f"{name} is not numeric")
        return None
    if arr.ndim != 1 + len(shape_tail) or tuple(arr.shape[1:]) != tuple(shape_tail):
        issues.append(f"{name} has shape {arr.shape}")
        return None
    return arr


# ------------------------------------------------------------------ navmesh
def valid_polygons(navmesh, issues: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices, polygons, keep): rows of ``polygons`` that index finite vertices."""
    verts = _array(navmesh, "vertices", np.float64, (3,), issues)
    polys = getattr(navmesh, "polygons", None)
    polys = None if polys is None else np.asarray(polys)
    if verts is None or polys is None or polys.ndim != 2 or polys.shape[1] < 3:
        if polys is not None and (polys.ndim != 2 or polys.shape[1] < 3):
            issues.append(f"polygons has shape {polys.shape}")
        return np.zeros((0, 3)), np.zeros((0, 3), np.int64), np.zeros(0, bool)
    polys = polys.astype(np.int64)
    nv = verts.shape[0]
    finite_vert = np.isfinite(verts).all(axis=1)
    used = polys >= 0
    in_range = np.where(used, polys < nv, True)
    safe = np.where(used & in_range, polys, 0)
    ok_vert = np.where(used, finite_vert[safe] if nv else False, True)
    keep = in_range.all(axis=1) & ok_vert.all(axis=1) & (used.sum(axis=1) >= 3) & used[:, 0]
    bad = int((~keep).sum())
    if bad:
        issues.append(f"{bad} polygons with missing or invalid vertices were skipped")
    return verts, polys, keep


def _polygon_fan(verts, polys, rows) -> tuple[np.ndarray, np.ndarray]:
    """Triangles (T, 3, 3) fanned from each polygon's first vertex, and their polygon."""
    tris, owner = [], []
    for k in range(1, polys.shape[1] - 1):  # at most nvp - 2 passes (nvp <= 6)
        sel = rows[polys[rows, k + 1] >= 0]
        if sel.size:
            tris.append(np.stack([verts[polys[sel, 0]], verts[polys[sel, k]],
                                  verts[polys[sel, k + 1]]], axis=1))
            owner.append(sel)
    if not tris:
        return np.zeros((0, 3, 3)), np.zeros(0, np.int64)
    return np.concatenate(tris), np.concatenate(owner)


def _detail_triangles(navmesh, rows, issues) -> tuple[np.ndarray, np.ndarray] | None:
    """Detail triangles (T, 3, 3) of polygons ``rows`` and their polygon; None if unusable."""
    dmesh = _array(navmesh, "detail_meshes", np.int64, (4,), [])
    dverts = _array(navmesh, "detail_vertices", np.float64, (3,), [])
    dtris = _array(navmesh, "detail_triangles", np.int64, (4,), [])
    if dmesh is None or dverts is None or dtris is None or dtris.shape[0] == 0:
        return None
    if dmesh.shape[0] != np.asarray(navmesh.polygons).shape[0]:
        issues.append("detail mesh does not match the polygons; drawing flat polygons")
        return None
    vb, nv, tb, nt = (dmesh[rows, i] for i in range(4))
    if (nt < 0).any() or (tb < 0).any() or (tb + nt > dtris.shape[0]).any():
        issues.append("detail triangles out of range; drawing flat polygons")
        return None
    total = int(nt.sum())
    owner = np.repeat(rows, nt)
    first = np.repeat(np.cumsum(nt) - nt, nt)
    tri_index = np.repeat(tb, nt) + (np.arange(total) - first)
    local = dtris[tri_index, :3]
    vbase = np.repeat(vb, nt)[:, None]
    vcount = np.repeat(nv, nt)[:, None]
    if (local < 0).any() or (local >= vcount).any():
        issues.append("detail triangles index outside their polygon; drawing flat polygons")
        return None
    index = local + vbase
    if (index >= dverts.shape[0]).any():
        issues.append("detail vertices out of range; drawing flat polygons")
        return None
    pts = dverts[index]
    good = np.isfinite(pts).all(axis=(1, 2))
    return pts[good], owner[good]


def navmesh_triangles(navmesh, rows, issues) -> tuple[np.ndarray, np.ndarray]:
    """Surface triangles (T, 3, 3) of polygons ``rows`` (detail mesh when valid)."""
    detail = _detail_triangles(navmesh, rows, issues)
    if detail is not None:
        return detail
    verts, polys, _keep = valid_polygons(navmesh, [])
    return _polygon_fan(verts, polys, rows)


def build_stance_layers(navmesh, keep_rows, issues, lift: float = 0.05,
                        alpha: float = FILL_ALPHA) -> dict[str, LayerGeometry]:
    """One fill layer per stance: the surface triangles of its polygons."""
    stance = np.asarray(getattr(navmesh, "polygon_stance", np.zeros(0)), np.int64)
    npoly = np.asarray(navmesh.polygons).shape[0]
    if stance.shape != (npoly,):
        issues.append(f"polygon_stance has shape {stance.shape}; all polygons drawn as stand")
        stance = np.zeros(npoly, np.int64)
    unknown = keep_rows[(stance[keep_rows] < 0) | (stance[keep_rows] >= len(STANCE_NAMES))]
    if unknown.size:
        issues.append(f"{unknown.size} polygons have an unknown stance and are not filled")
    tris, owner = navmesh_triangles(navmesh, keep_rows, issues)
    tris = tris + np.array([0.0, 0.0, lift])
    layers = {}
    for i, name in enumerate(STANCE_NAMES):
        sel = tris[stance[owner] == i].reshape(-1, 3)
        layers[f"stance_{name}"] = LayerGeometry(_f32(sel),
                                                 _colors(STANCE_COLORS[name], sel.shape[0],
                                                         alpha))
    return layers


def build_outline_layer(navmesh, verts, polys, keep, issues,
                        lift: float = 0.05) -> LayerGeometry:
    """Polygon edges: shared edges once (thin), border edges thick."""
    n, nvp = polys.shape
    if n == 0:
        return LayerGeometry()
    used = polys >= 0
    nxt = np.roll(polys, -1, axis=1)
    # the edge after the last used slot closes the polygon back to slot 0
    nxt = np.where(used & (np.roll(used, -1, axis=1)), nxt, polys[:, :1])
    neigh = getattr(navmesh, "neighbours", None)
    neigh = None if neigh is None else np.asarray(neigh)
    if neigh is None or neigh.shape != polys.shape:
        issues.append("neighbours missing or mis-shaped: every edge drawn as a border")
        neigh = np.full(polys.shape, -1, np.int64)
    else:
        neigh = neigh.astype(np.int64)
    edge = used & keep[:, None]
    pid = np.broadcast_to(np.arange(n)[:, None], polys.shape)
    border = edge & ((neigh < 0) | (neigh >= n))
    # a shared edge is drawn by the lower polygon, or by this one when the other is skipped
    other_ok = np.where((neigh >= 0) & (neigh < n), keep[np.clip(neigh, 0, n - 1)], False)
    inner = edge & ~border & ((neigh > pid) | ~other_ok)
    up = np.array([0.0, 0.0, lift])
    sets = []
    for mask, rgba, width in ((inner, OUTLINE_COLOR, OUTLINE_WIDTH),
                              (border, BORDER_COLOR, BORDER_WIDTH)):
        a = verts[polys[mask]] + up
        b = verts[nxt[mask]] + up
        sets.append(_lineset(a, b, rgba, width))
    return LayerGeometry(lines=sets)


# ------------------------------------------------------------------ links
def arc_points(p0: np.ndarray, p1: np.ndarray, apex: np.ndarray,
               segments: int = ARC_SEGMENTS) -> np.ndarray:
    """(N, segments + 1, 3) points of ballistic arcs from p0 to p1 (see module doc).

    ``apex``: rise above the take-off point (metres); raised to the landing height when
    lower (the arc then tops out at the landing), negative or NaN taken as 0.
    """
    p0 = np.asarray(p0, np.float64).reshape(-1, 3)
    p1 = np.asarray(p1, np.float64).reshape(-1, 3)
    apex = np.nan_to_num(np.asarray(apex, np.float64).reshape(-1), nan=0.0)
    u = np.linspace(0.0, 1.0, segments + 1)
    dz = p1[:, 2] - p0[:, 2]
    a = np.maximum(np.maximum(apex, dz), 0.0)
    ra = np.sqrt(a)
    k = ra + np.sqrt(np.maximum(a - dz, 0.0))
    out = np.empty((p0.shape[0], segments + 1, 3))
    out[:, :, :2] = p0[:, None, :2] + u[None, :, None] * (p1 - p0)[:, None, :2]
    out[:, :, 2] = (p0[:, 2:3] + 2.0 * (ra * k)[:, None] * u[None, :]
                    - (k * k)[:, None] * (u * u)[None, :])
    return out


def _polyline_segments(curves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(N, S+1, 3) polylines as LINES segment ends (a, b), each (N*S, 3)."""
    return curves[:, :-1].reshape(-1, 3), curves[:, 1:].reshape(-1, 3)


def _horizontal_side(direction: np.ndarray) -> np.ndarray:
    """Unit horizontal vectors perpendicular to ``direction`` (x axis when vertical)."""
    side = np.stack([-direction[:, 1], direction[:, 0], np.zeros(direction.shape[0])], axis=1)
    n = np.linalg.norm(side, axis=1, keepdims=True)
    return np.where(n > 1e-9, side / np.maximum(n, 1e-12), np.array([0.0, 1.0, 0.0]))


def arrowheads(tips: np.ndarray, back: np.ndarray, across: np.ndarray,
               size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two wing segments per arrow: from ``tips`` back along ``back``, spread on ``across``."""
    b = back / np.maximum(np.linalg.norm(back, axis=1, keepdims=True), 1e-12)
    s = size[:, None]
    w1 = tips + s * (0.87 * b + 0.5 * across)
    w2 = tips + s * (0.87 * b - 0.5 * across)
    return np.concatenate([tips, tips]), np.concatenate([w1, w2])


def _cross_marker(centres: np.ndarray, size: float) -> tuple[np.ndarray, np.ndarray]:
    d1 = np.array([size, size, 0.0])
    d2 = np.array([size, -size, 0.0])
    a = np.concatenate([centres - d1, centres - d2])
    b = np.concatenate([centres + d1, centres + d2])
    return a, b


def valid_links(navmesh, issues: list[str]) -> np.ndarray:
    """Indices of links whose arrays are consistent and coordinates finite."""
    kind = getattr(navmesh, "link_kind", None)
    if kind is None:
        return np.zeros(0, np.int64)
    kind = np.asarray(kind).reshape(-1)
    n = kind.shape[0]
    if n == 0:
        return np.zeros(0, np.int64)
    start = _array(navmesh, "link_start", np.float64, (2, 3), issues)
    end = _array(navmesh, "link_end", np.float64, (2, 3), issues)
    if start is None or end is None or start.shape[0] != n or end.shape[0] != n:
        issues.append("link arrays do not match: links not drawn")
        return np.zeros(0, np.int64)
    ok = (np.isfinite(start).all(axis=(1, 2)) & np.isfinite(end).all(axis=(1, 2))
          & (kind >= 0) & (kind < len(LINK_KINDS)))
    bad = int((~ok).sum())
    if bad:
        issues.append(f"{bad} links with invalid kind or coordinates were skipped")
    return np.nonzero(ok)[0]


def _per_link(navmesh, name, n, default, dtype) -> np.ndarray:
    value = getattr(navmesh, name, None)
    arr = None if value is None else np.asarray(value).reshape(-1)
    if arr is None or arr.shape[0] != n:
        return np.full(n, default, dtype)
    return arr.astype(dtype)


def link_apex(navmesh, n: int) -> np.ndarray:
    """Rise of each link's arc above its take-off point (``link_apex``, 0 when missing)."""
    apex = _per_link(navmesh, "link_apex", n, 0.0, np.float64)
    return np.where(np.isfinite(apex) & (apex > 0), apex, 0.0)


def unattached_ends(navmesh, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(start_unattached, end_unattached) per link: no polygon, or one out of range."""
    npoly = np.asarray(navmesh.polygons).shape[0]
    sp = _per_link(navmesh, "link_start_poly", n, -1, np.int64)
    ep = _per_link(navmesh, "link_end_poly", n, -1, np.int64)
    return (sp < 0) | (sp >= npoly), (ep < 0) | (ep >= npoly)


def build_link_layers(navmesh, issues, lift: float = 0.05,
                      segments: int = ARC_SEGMENTS) -> dict[str, LayerGeometry]:
    """One layer per link kind: arcs (ribbons for wide links), arrowheads, red loose ends."""
    ids = valid_links(navmesh, issues)
    layers = {name: LayerGeometry() for name in LINK_LAYERS}
    if ids.size == 0:
        return layers
    n_all = np.asarray(navmesh.link_kind).reshape(-1).shape[0]
    kind_all = np.asarray(navmesh.link_kind).reshape(-1).astype(np.int64)
    apex_all = link_apex(navmesh, n_all)
    bidir_all = _per_link(navmesh, "link_bidirectional", n_all, False, np.bool_)
    loose_s_all, loose_e_all = unattached_ends(navmesh, n_all)
    start_all = np.asarray(navmesh.link_start, np.float64)
    end_all = np.asarray(navmesh.link_end, np.float64)
    up = np.array([0.0, 0.0, lift])
    for k, kind_name in enumerate(LINK_KINDS):
        sel = ids[kind_all[ids] == k]
        if sel.size == 0:
            continue
        rgba = LINK_COLORS[kind_name]
        start = start_all[sel] + up
        end = end_all[sel] + up
        apex = apex_all[sel]
        width = np.maximum(np.linalg.norm(start[:, 1] - start[:, 0], axis=1),
                           np.linalg.norm(end[:, 1] - end[:, 0], axis=1))
        wide = width > WIDE_LINK
        tris = np.zeros((0, 3))
        line_sets: list[LineSet] = []
        # narrow links: one arc through the segment midpoints
        mid_s, mid_e = start.mean(axis=1), end.mean(axis=1)
        centre = arc_points(mid_s, mid_e, apex, segments)
        narrow = centre[~wide]
        if narrow.shape[0]:
            line_sets.append(_lineset(*_polyline_segments(narrow), rgba, LINK_WIDTH))
        # wide links: an arc along each side, a ribbon between them, and the segments
        if wide.any():
            left = arc_points(start[wide, 0], end[wide, 0], apex[wide], segments)
            right = arc_points(start[wide, 1], end[wide, 1], apex[wide], segments)
            line_sets.append(_lineset(*_polyline_segments(left), rgba, LINK_WIDTH))
            line_sets.append(_lineset(*_polyline_segments(right), rgba, LINK_WIDTH))
            line_sets.append(_lineset(start[wide, 0], start[wide, 1], rgba, LINK_WIDTH))
            line_sets.append(_lineset(end[wide, 0], end[wide, 1], rgba, LINK_WIDTH))
            l0, l1 = left[:, :-1], left[:, 1:]
            r0, r1 = right[:, :-1], right[:, 1:]
            quads = np.stack([l0, r0, r1, l0, r1, l1], axis=2)  # (W, S, 6, 3)
            tris = quads.reshape(-1, 3)
        # arrowheads on the centre arc: at the landing, and at the take-off when two-way
        horiz = centre[:, -1] - centre[:, 0]
        horiz[:, 2] = 0.0
        across = _horizontal_side(horiz)
        span = np.linalg.norm(horiz, axis=1)
        size = np.clip(0.25 * np.maximum(span, width), 0.15, 0.5)
        tips_a, tips_b = arrowheads(centre[:, -1], centre[:, -2] - centre[:, -1], across, size)
        line_sets.append(_lineset(tips_a, tips_b, rgba, LINK_WIDTH))
        two_way = bidir_all[sel]
        if two_way.any():
            c = centre[two_way]
            a, b = arrowheads(c[:, 0], c[:, 1] - c[:, 0], across[two_way], size[two_way])
            line_sets.append(_lineset(a, b, rgba, LINK_WIDTH))
        # ends on no polygon: the end segment and a cross, in red
        loose = []
        for mask, seg in ((loose_s_all[sel], start), (loose_e_all[sel], end)):
            if mask.any():
                loose.append(_lineset(seg[mask, 0], seg[mask, 1], UNATTACHED_COLOR,
                                      MARKER_WIDTH))
                loose.append(_lineset(*_cross_marker(seg[mask].mean(axis=1), 0.2),
                                      UNATTACHED_COLOR, MARKER_WIDTH))
        geometry = LayerGeometry(
            _f32(tris), _colors(rgba, tris.shape[0], RIBBON_ALPHA),
            [_concat_linesets(line_sets, LINK_WIDTH)])
        if loose:
            geometry.lines.append(_concat_linesets(loose, MARKER_WIDTH))
        layers[f"links_{kind_name}"] = geometry
    return layers


# ------------------------------------------------------------------ everything
def navmesh_bounds(navmesh, _valid=None) -> np.ndarray:
    """(2, 3) bounds of the valid polygons and links (zeros when there is nothing)."""
    pts = []
    verts, polys, keep = _valid if _valid is not None else valid_polygons(navmesh, [])
    if keep.any():
        used = np.zeros(verts.shape[0], bool)
        rows = polys[keep]
        used[rows[rows >= 0]] = True
        pts.append(verts[used])
    ids = valid_links(navmesh, [])
    if ids.size:
        pts.append(np.asarray(navmesh.link_start, np.float64)[ids].reshape(-1, 3))
        pts.append(np.asarray(navmesh.link_end, np.float64)[ids].reshape(-1, 3))
    if not pts:
        return np.zeros((2, 3))
    allp = np.concatenate(pts)
    return np.stack([allp.min(axis=0), allp.max(axis=0)])


def build_overlay(navmesh, lift: float = 0.05) -> OverlayGeometry:
    """Every navmesh layer (no path). Never raises on inconsistent arrays: invalid parts
    are left out and named in ``issues``."""
    issues: list[str] = []
    layers: dict[str, LayerGeometry] = {name: LayerGeometry() for name in LAYER_NAMES}
    if navmesh is None:
        return OverlayGeometry(layers, issues, np.zeros((2, 3)))
    verts, polys, keep = valid_polygons(navmesh, issues)
    rows = np.nonzero(keep)[0]
    if rows.size:
        layers.update(build_stance_layers(navmesh, rows, issues, lift))
        layers["navmesh"] = build_outline_layer(navmesh, verts, polys, keep, issues, lift)
    layers.update(build_link_layers(navmesh, issues, lift))
    if rows.size:
        layers["tiles"] = build_tile_layer(navmesh, verts, polys, keep, issues, lift)
    return OverlayGeometry(layers, issues, navmesh_bounds(navmesh, (verts, polys, keep)))


def build_tile_layer(navmesh, verts, polys, keep, issues, lift: float = 0.05) -> LayerGeometry:
    """Tile borders of a tiled bake (empty for a solo bake): the square of every tile that
    has polygons, drawn at the height of its lowest polygon vertex (``stats["tile_grid"]``
    places the squares); without a grid, the polygon edges where two tiles meet."""
    if getattr(navmesh, "polygon_tile", None) is None:
        return LayerGeometry()
    tile = _array(navmesh, "polygon_tile", np.int64, (), issues)
    if tile is None or tile.shape[0] == 0:
        return LayerGeometry()
    if tile.shape[0] != polys.shape[0]:
        issues.append(f"polygon_tile has {tile.shape[0]} entries for {polys.shape[0]} "
                      f"polygons: tile borders not drawn")
        return LayerGeometry()
    stats = getattr(navmesh, "stats", None)
    grid = stats.get("tile_grid") if isinstance(stats, dict) else None
    rows = np.nonzero(keep)[0]
    if isinstance(grid, dict):
        try:
            ox, oy = (float(x) for x in grid["origin"])
            side = float(grid["tile_size"]) * float(grid["cell_size"])
            tiles_x = int(grid["tiles"][0])
        except (KeyError, TypeError, ValueError, IndexError):
            issues.append("stats['tile_grid'] is not a tile grid: tile borders not drawn")
            return LayerGeometry()
        # the lowest vertex of each kept polygon, then of each tile (no Python loop: a
        # live re-bake rebuilds this layer)
        sub = polys[rows]
        z = np.where(sub >= 0, verts[np.maximum(sub, 0), 2], np.inf).min(axis=1)
        tiles, first = np.unique(tile[rows], return_inverse=True)
        if tiles.size == 0:
            return LayerGeometry()
        low = np.full(tiles.size, np.inf)
        np.minimum.at(low, first, z)
        x0 = ox + (tiles % tiles_x) * side
        y0 = oy + (tiles // tiles_x) * side
        zl = low + lift
        c = np.stack([np.stack([x0, y0, zl], axis=1), np.stack([x0 + side, y0, zl], axis=1),
                      np.stack([x0 + side, y0 + side, zl], axis=1),
                      np.stack([x0, y0 + side, zl], axis=1)], axis=1)  # (T, 4, 3)
        layer = LayerGeometry()
        layer.lines.append(_lineset(c.reshape(-1, 3), np.roll(c, -1, axis=1).reshape(-1, 3),
                                    TILE_BORDER_COLOR, TILE_BORDER_WIDTH))
        return layer
    nb = _array(navmesh, "neighbours", np.int64, (polys.shape[1],), issues)
    if nb is None or nb.shape[0] != polys.shape[0]:
        return LayerGeometry()
    # edges (p, i) of kept polygons whose neighbour o > p lies in another tile
    counts = (polys >= 0).sum(axis=1)
    slot = np.arange(polys.shape[1])[None, :]
    kept = np.zeros(polys.shape[0], np.bool_)
    kept[rows] = True
    o = nb
    valid = (slot < counts[:, None]) & kept[:, None] & (o >= 0) & (o < tile.shape[0])
    o_safe = np.where(valid, o, 0)
    valid &= (o_safe > np.arange(polys.shape[0])[:, None]) & (tile[o_safe] != tile[:, None])
    p_idx, i_idx = np.nonzero(valid)
    layer = LayerGeometry()
    if p_idx.size:
        nxt = (i_idx + 1) % counts[p_idx]
        lifted = np.array([0.0, 0.0, lift])
        layer.lines.append(_lineset(verts[polys[p_idx, i_idx]] + lifted,
                                    verts[polys[p_idx, nxt]] + lifted,
                                    TILE_BORDER_COLOR, TILE_BORDER_WIDTH))
    return layer


# ------------------------------------------------------------------ path


def _diamond(centres: np.ndarray, size: float) -> tuple[np.ndarray, np.ndarray]:
    offs = np.array([[size, 0, 0], [0, size, 0], [-size, 0, 0], [0, -size, 0]])
    a = (centres[:, None, :] + offs[None]).reshape(-1, 3)
    b = (centres[:, None, :] + np.roll(offs, -1, axis=0)[None]).reshape(-1, 3)
    return a, b


def build_path_layer(points, flags, stances=None, point_links=None, navmesh=None,
                     start=None, goal=None, lift: float = 0.1,
                     segments: int = ARC_SEGMENTS) -> LayerGeometry:
    """The test path: walking segments (white), airborne segments as arcs (pink),
    a diamond in the new stance's colour at each stance change, start and goal crosses.

    ``start``/``goal`` (optional) are the raw end points, drawn even without a path.
    """
    pts = np.asarray(points if points is not None else np.zeros((0, 3)), np.float64)
    pts = pts.reshape(-1, 3)
    up = np.array([0.0, 0.0, lift])
    sets: list[LineSet] = []
    markers: list[LineSet] = []
    n = pts.shape[0]
    if n and np.isfinite(pts).all():
        pts = pts + up
        fl = np.asarray(flags, np.int64).reshape(-1)
        if fl.shape[0] != n:
            fl = np.zeros(n, np.int64)
        if n >= 2:
            air = np.isin(fl[:-1], (FLAG_JUMP_START, FLAG_DROP_START))
            walk = ~air
            sets.append(_lineset(pts[:-1][walk], pts[1:][walk], PATH_COLOR, PATH_WIDTH))
            if air.any():
                idx = np.nonzero(air)[0]
                apex = np.where(fl[idx] == FLAG_JUMP_START, DEFAULT_JUMP_APEX, 0.0)
                if point_links is not None and navmesh is not None:
                    pl = np.asarray(point_links, np.int64).reshape(-1)
                    nl = np.asarray(getattr(navmesh, "link_kind", np.zeros(0))).shape[0]
                    if pl.shape[0] == n and nl:
                        link = pl[idx]
                        known = (link >= 0) & (link < nl)
                        apex_all = link_apex(navmesh, nl)
                        apex = np.where(known, apex_all[np.clip(link, 0, nl - 1)], apex)
                arcs = arc_points(pts[idx], pts[idx + 1], apex, segments)
                sets.append(_lineset(*_polyline_segments(arcs), PATH_JUMP_COLOR, PATH_WIDTH))
        change = np.nonzero(fl == FLAG_STANCE_CHANGE)[0]
        if change.size:
            st = np.zeros(n, np.int64) if stances is None else np.asarray(stances, np.int64)
            st = st.reshape(-1) if st.size == n else np.zeros(n, np.int64)
            for i, name in enumerate(STANCE_NAMES):
                at = change[st[change] == i]
                if at.size:
                    markers.append(_lineset(*_diamond(pts[at], 0.3), STANCE_COLORS[name],
                                            MARKER_WIDTH))
    for point, rgba in ((start, PATH_START_COLOR), (goal, PATH_GOAL_COLOR)):
        if point is None:
            continue
        p = np.asarray(point, np.float64).reshape(1, 3)
        if np.isfinite(p).all():
            markers.append(_lineset(*_cross_marker(p + up, 0.35), rgba, MARKER_WIDTH))
            markers.append(_lineset(p + up, p + up + np.array([0, 0, 1.0]), rgba,
                                    MARKER_WIDTH))
    lines = [_concat_linesets(sets, PATH_WIDTH)]
    if markers:
        lines.append(_concat_linesets(markers, MARKER_WIDTH))
    return LayerGeometry(lines=lines)


def path_summary(flags, stances, point_links=None, navmesh=None) -> dict:
    """Counts for the readout: jumps, drops and stance changes along a path."""
    fl = np.asarray(flags, np.int64).reshape(-1)
    st = np.asarray(stances if stances is not None else np.zeros(0), np.int64).reshape(-1)
    changes = int((fl == FLAG_STANCE_CHANGE).sum())
    if st.size == fl.size and st.size > 1:
        # a change at a flagged corner is counted once either way
        changes = max(changes, int((st[1:] != st[:-1]).sum()))
    return {"jumps": int((fl == FLAG_JUMP_START).sum()),
            "drops": int((fl == FLAG_DROP_START).sum()),
            "stance_changes": changes}


# ------------------------------------------------ panel settings read as plain values
def visible_layers(pg) -> set[str]:
    """Overlay layer names (``LAYER_NAMES``) switched on in the overlay settings ``pg``
    (``scene.navjump_overlay``, or anything with the same attributes)."""
    if pg is None or not pg.show_overlay:
        return set()
    out = set()
    if pg.show_navmesh:
        out.add("navmesh")
    for name, layer in zip(STANCE_NAMES, STANCE_LAYERS, strict=True):
        if getattr(pg, f"show_{name}"):
            out.add(layer)
    for name, layer in zip(LINK_KINDS, LINK_LAYERS, strict=True):
        if getattr(pg, f"show_{name}"):
            out.add(layer)
    if pg.show_path and pg.path_test:
        out.add("path")
    if getattr(pg, "show_tiles", False):
        out.add("tiles")
    return out


def test_agent_names(pg) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(stances, link kinds) the test agent may use."""
    stances = tuple(s for s in STANCE_NAMES if getattr(pg, f"test_{s}"))
    links = tuple(k for k in LINK_KINDS if getattr(pg, f"test_{k}"))
    return stances, links
