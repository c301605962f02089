"""Climbing: ledges, ladders and pipes as a climb graph joined to the navmesh.

numpy + numba only. The model follows the climb mesh of *Fuse* (see docs/climbing.md):

1. **Elements** (:class:`ClimbElements`): straight segments of kind ledge (horizontal),
   ladder or pipe (vertical), with the abilities they need and the object they came from.
   :func:`element_from_points` makes one from an object's points (a ledge from its top
   line, a ladder or pipe from the vertical axis of its bounds).
2. **The climb graph** (:func:`build_climb_graph`, :class:`ClimbGraph`): nodes at element
   ends and every ``spacing`` metres along them; merged where elements touch (end to end,
   T or crossing: a crossing gives one node of degree 4); "along" edges between
   consecutive nodes of an element; implicit jump / drop / back-jump edges between the
   end and centre nodes of different elements, gated by distance, angle and a collision
   probe against the scene's triangles. Per-element options (``core/climb_options.py``:
   abilities, allowed moves, navmesh links; an item's optional fourth field) shape the
   edges at both ends of each element.
3. **Joined to the navmesh** (:func:`join_navmesh`, :class:`ClimbLinks`): mount, ladder-foot
   and hang links between climb nodes and walkable ground.

:func:`add_climbing` does all three and stores the result on a NavMesh (``climb_*`` arrays).
Everything is deterministic: the same input gives bit-identical arrays.
"""

from __future__ import annotations

import dataclasses
import math
import operator
from typing import NamedTuple

import numpy as np
from numba import njit

from .climb_body import body_blocked, chain_blocked, hang_fronts
from .climb_geom import (
    GROUND_REACH,
    SurfaceGrid,
    TriangleGrid,
    _closest_on_triangle_xy,
    _dot,
    _segment_hits,
    _walk_one,
    surface_grid,
    triangle_grid,
)
from .climb_options import ALL_LINKS, ALL_MOVES, ElementOptions
from .geometry import triangle_normal
from .kinds import (
    ABILITY_BACK_JUMP,
    ABILITY_CLIMB,
    ABILITY_LADDER,
    ABILITY_PIPE,
    ABILITY_SHIMMY,
    CLIMB_EDGE_ALONG,
    CLIMB_EDGE_BACK_JUMP,
    CLIMB_EDGE_CORNER,
    CLIMB_EDGE_DROP,
    CLIMB_EDGE_JUMP,
    CLIMB_ELEMENT_KINDS,
    CLIMB_LADDER,
    CLIMB_LEDGE,
    CLIMB_LINK_BASE_ABILITIES,
    CLIMB_LINK_HANG,
    CLIMB_LINK_KIND_ABILITIES,
    CLIMB_LINK_LADDER_FOOT,
    CLIMB_LINK_MOUNT,
    CLIMB_PIPE,
    CLIMB_SUFFIXES,  # noqa: F401  (re-exported)
)
from .navmesh_check import climb_link_ability_masks
from .query.astar import heap_pop, heap_push
from .query.spatial import _cell_range

# Abilities an element needs to be used at all, and that its "along" edges need.
ELEMENT_ABILITIES = {
    CLIMB_LEDGE: ABILITY_CLIMB | ABILITY_SHIMMY,
    CLIMB_LADDER: ABILITY_LADDER,
    CLIMB_PIPE: ABILITY_PIPE,
}
_ELEMENT_ABILITY_TABLE = np.array([ELEMENT_ABILITIES[k] for k in range(len(CLIMB_ELEMENT_KINDS))],
                                  np.uint16)
# An element's abilities minus these are what an agent needs to hold on to it at all, and
# so what every implicit edge to or from it needs too (shimmying is its along move only).
ALONG_ONLY_ABILITIES = ABILITY_SHIMMY

# Node spacing along an element (metres): nodes at both ends and evenly spaced at most this
# far apart, never fewer than 3 (ends and centre, as in Fuse).
NODE_SPACING = 1.0
# Elements closer than this (metres) touch: their closest points become one node.
MERGE_DISTANCE = 0.05
# Shortest element kept (metres).
MIN_ELEMENT_LENGTH = 0.1
# Points of a ledge object within this of its highest point form its top line (metres).
LEDGE_TOP_TOLERANCE = 0.05
# Two ledges are parallel (a back jump between them is possible) within this angle (deg).
BACK_JUMP_PARALLEL_DEG = 20.0
# The collision probe between two hand points: raised by PROBE_LIFT and trimmed by
# PROBE_TRIM at each end (metres), so the wall a ledge lies on does not block it.
PROBE_LIFT = 0.1
PROBE_TRIM = 0.1
# ... and moved this far (metres) to the hanging side of each hold (climb_body.py).
PROBE_OUT = 0.05
# An element farther than this from the scene's bounds is refused (metres).
OUTSIDE_SCENE_MARGIN = 100.0
# Corners (a shimmy round a block's corner from one ledge to the next, or from a ledge
# onto a ladder or pipe on the next face; docs/climbing.md "Corners"). Outside corners
# between ledges: the two
# ledges turn by at least CORNER_MIN_TURN_DEG, lie within CORNER_HEIGHT_TOL of one height,
# and each ends at most ``ClimbParams.corner_gap`` short of the corner; the hanging body
# pivots round the corner in steps of at most CORNER_PIVOT_STEP_DEG.
CORNER_MIN_TURN_DEG = 30.0
CORNER_HEIGHT_TOL = 0.1
CORNER_GAP = 1.0
CORNER_PIVOT_STEP_DEG = 30.0


class ClimbElements(NamedTuple):
    """Climb elements as parallel arrays, one row per element."""

    kind: np.ndarray  # (E,) int8, index into CLIMB_ELEMENT_KINDS
    ends: np.ndarray  # (E, 2, 3) float64: p0, p1 (ledges: any order; vertical: bottom, top)
    abilities: np.ndarray  # (E,) uint16 bit mask of CLIMB_ABILITIES the element needs
    name: np.ndarray  # (E,) str: the source object's name
    moves: np.ndarray  # (E,) uint8 bit mask of CLIMB_EDGE_KINDS allowed to touch it
    links: np.ndarray  # (E,) uint8 bit mask of CLIMB_LINK_KINDS allowed at its nodes


class ClimbParams(NamedTuple):
    """Thresholds of the climb graph and its navmesh join (metres, degrees)."""

    spacing: float = NODE_SPACING
    merge_distance: float = MERGE_DISTANCE
    max_link_distance: float = 3.0  # longest implicit (jump / back-jump) link
    max_link_angle: float = 90.0  # steepest upward jump, degrees above horizontal
    max_drop_height: float = 4.0  # highest drop between elements or to the ground
    max_climb_height: float = 3.0  # highest hang above ground an agent jumps up to
    step_height: float = 0.9  # ground within this height of a node is level with it
    reach: float = 0.6 + GROUND_REACH  # horizontal reach from a node to the ground
    body_radius: float = 0.6  # the hanging body's half-width (climb_body.py)
    hang_height: float = 2.0  # the hanging body reaches this far below the hands
    corner_gap: float = CORNER_GAP  # a corner's ledges end at most this short of it

    @classmethod
    def from_settings(cls, settings) -> ClimbParams:
        return cls(max_link_distance=float(settings.max_jump_distance),
                   max_drop_height=float(settings.max_drop_height),
                   max_climb_height=float(settings.max_climb_height),
                   step_height=float(settings.agent_max_climb),
                   reach=float(settings.agent_radius) + GROUND_REACH,
                   body_radius=float(settings.agent_radius),
                   hang_height=float(settings.agent_height))


class ClimbGraph(NamedTuple):
    """Nodes and edges of the climb graph. Edges are directed ``nodes[k, 0] -> [k, 1]``;
    a bidirectional edge may also be used backwards."""

    node_position: np.ndarray  # (N, 3) float64
    edge_nodes: np.ndarray  # (K, 2) int32
    edge_kind: np.ndarray  # (K,) int8, index into CLIMB_EDGE_KINDS
    edge_element: np.ndarray  # (K,) int32: the element of an "along" edge, -1 implicit
    edge_length: np.ndarray  # (K,) float64, Euclidean
    edge_abilities: np.ndarray  # (K,) uint16 bit mask needed
    edge_bidirectional: np.ndarray  # (K,) bool
    element_nodes: list  # per element: its node ids in order from p0 to p1


class ClimbLinks(NamedTuple):
    """Links between climb nodes and the navmesh, one row per link."""

    kind: np.ndarray  # (C,) int8, index into CLIMB_LINK_KINDS
    node: np.ndarray  # (C,) int32 climb node
    point: np.ndarray  # (C, 3) float64 point on the navmesh surface
    poly: np.ndarray  # (C,) int32 navmesh polygon under ``point``
    bidirectional: np.ndarray  # (C,) bool; False: only climb node -> ground (a drop)
    length: np.ndarray  # (C,) float64, Euclidean node to point
    abilities: np.ndarray  # (C,) uint16 bit mask needed (link_abilities)


def empty_elements() -> ClimbElements:
    return ClimbElements(np.zeros(0, np.int8), np.zeros((0, 2, 3)), np.zeros(0, np.uint16),
                         np.zeros(0, dtype=str), np.zeros(0, np.uint8), np.zeros(0, np.uint8))


_DEFAULT_OPTIONS = ElementOptions()  # valid by construction: no check needed


def item_options(item) -> ElementOptions:
    """The :class:`ElementOptions` of a ``(name, kind, points[, options])`` item."""
    if len(item) <= 3 or item[3] is None:
        return _DEFAULT_OPTIONS
    opts = item[3]
    if not isinstance(opts, ElementOptions):
        opts = ElementOptions(*opts)
    opts.check(item[0])
    return opts


# ------------------------------------------------------------------------ elements
# why an object's points make no element (codes of _element_segments)
_SEG_OK, _SEG_EMPTY, _SEG_NOT_FINITE = 0, 1, 2


@njit(cache=True)
def _element_segments(points, start, kind, top_tol):
    """Segments (E, 2, 3) of the elements whose points are ``points[start[e]:start[e+1]]``
    and a status code per element (``_SEG_*``); see :func:`element_from_points`."""
    n = kind.shape[0]
    seg = np.zeros((n, 2, 3))
    status = np.zeros(n, np.int8)
    for e in range(n):
        a, b = start[e], start[e + 1]
        if b == a:
            status[e] = _SEG_EMPTY
            continue
        finite = True
        for i in range(a, b):
            for k in range(3):
                if not np.isfinite(points[i, k]):
                    finite = False
        if not finite:
            status[e] = _SEG_NOT_FINITE
            continue
        if kind[e] == CLIMB_LEDGE:
            top = -np.inf
            for i in range(a, b):
                top = max(top, points[i, 2])
            mx, my, m = 0.0, 0.0, 0
            for i in range(a, b):
                if points[i, 2] >= top - top_tol:
                    mx += points[i, 0]
                    my += points[i, 1]
                    m += 1
            mx /= m
            my /= m
            sxx, sxy, syy = 0.0, 0.0, 0.0
            for i in range(a, b):
                if points[i, 2] >= top - top_tol:
                    dx, dy = points[i, 0] - mx, points[i, 1] - my
                    sxx += dx * dx
                    sxy += dx * dy
                    syy += dy * dy
            # principal horizontal axis: eigenvector of the larger eigenvalue of the 2x2
            # covariance, from the better conditioned of its two rows
            half = 0.5 * (sxx - syy)
            lam = 0.5 * (sxx + syy) + math.sqrt(half * half + sxy * sxy)
            if sxx >= syy:
                ax, ay = lam - syy, sxy
            else:
                ax, ay = sxy, lam - sxx
            norm = math.hypot(ax, ay)
            if norm > 0.0:
                ax, ay = ax / norm, ay / norm
            else:
                ax, ay = 1.0, 0.0
            if ax < 0.0 or (ax == 0.0 and ay < 0.0):  # deterministic sign: +x, then +y
                ax, ay = -ax, -ay
            lo, hi = np.inf, -np.inf
            for i in range(a, b):
                if points[i, 2] >= top - top_tol:
                    p = (points[i, 0] - mx) * ax + (points[i, 1] - my) * ay
                    lo = min(lo, p)
                    hi = max(hi, p)
            seg[e, 0, 0], seg[e, 0, 1], seg[e, 0, 2] = mx + lo * ax, my + lo * ay, top
            seg[e, 1, 0], seg[e, 1, 1], seg[e, 1, 2] = mx + hi * ax, my + hi * ay, top
        else:
            for k in range(3):
                lo, hi = np.inf, -np.inf
                for i in range(a, b):
                    lo = min(lo, points[i, k])
                    hi = max(hi, points[i, k])
                if k < 2:
                    seg[e, 0, k] = seg[e, 1, k] = 0.5 * (lo + hi)
                else:
                    seg[e, 0, k], seg[e, 1, k] = lo, hi
    return seg, status


def _segments_of(items, kind=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(segments (E, 2, 3), status (E,), lengths (E,)) of ``(name, kind, points[, options])``
    items (``kind``: their kinds, :func:`_item_kinds`, when already known)."""
    start = np.zeros(len(items) + 1, np.int64)
    flat = None
    try:  # every item's points already (k, 3) rows: one concatenation, no per-item work
        raw = [it[2] for it in items]
        flat = np.concatenate(raw) if raw else None
        if flat is not None and (flat.ndim != 2 or flat.shape[1] != 3):
            flat = None
    except ValueError:  # (a flat list of coordinates, a single point, ...)
        flat = None
    if flat is not None:
        np.cumsum(np.fromiter(map(len, raw), np.int64, len(raw)), out=start[1:])
        if start[-1] != flat.shape[0]:
            flat = None
    if flat is not None:
        flat = np.ascontiguousarray(flat, np.float64)
    else:
        pts = [np.asarray(it[2], np.float64).reshape(-1, 3) for it in items]
        np.cumsum(np.fromiter((p.shape[0] for p in pts), np.int64, len(pts)), out=start[1:])
        flat = np.concatenate(pts) if pts else np.zeros((0, 3))
    kind = _item_kinds(items) if kind is None else kind
    seg, status = _element_segments(flat, start, kind, LEDGE_TOP_TOLERANCE)
    return seg, status, np.linalg.norm(seg[:, 1] - seg[:, 0], axis=1)


def _item_kinds(items) -> np.ndarray:
    """(E,) int8 kind of each ``(name, kind, points[, options])`` item."""
    return np.array(list(map(int, map(operator.itemgetter(1), items))), np.int8)


def _refusal(name, kind: int, status: int, length: float) -> str | None:
    """The message for an element that cannot be one, None when it is usable."""
    what = CLIMB_ELEMENT_KINDS[kind]
    if status == _SEG_EMPTY:
        return f"{what} {name!r}: the object has no points; skipped"
    if status == _SEG_NOT_FINITE:
        return f"{what} {name!r}: a point has a NaN or infinite coordinate; skipped"
    if not length >= MIN_ELEMENT_LENGTH:
        return (f"{what} {name!r}: {length:.3g} m long, shorter than the "
                f"{MIN_ELEMENT_LENGTH:g} m a climb element needs; skipped")
    return None


def element_from_points(name: str, kind: int, points) -> tuple[np.ndarray | None, str | None]:
    """The (2, 3) segment of a climb element made from an object's points, or
    ``(None, message)`` naming the object when it cannot be one.

    A ledge is the top line of its points: the points within ``LEDGE_TOP_TOLERANCE`` of the
    highest, as a line through their mean along their longest horizontal spread (principal
    axis), from the first to the last of them on it, at the highest height. A ladder or
    pipe is the vertical axis of the points' bounds: from the centre of the bottom to the
    centre of the top.
    """
    seg, status, length = _segments_of([(name, kind, points)])
    msg = _refusal(name, kind, int(status[0]), float(length[0]))
    return (None, msg) if msg else (seg[0], None)


def make_elements(items, scene_bounds=None) -> tuple[ClimbElements, list[str]]:
    """Elements from ``(name, kind, points)`` or ``(name, kind, points, options)`` items
    (:class:`ElementOptions`); returns (elements, warnings).

    Refused with a warning naming the object (the rest are kept): an element that is too
    short, one farther than ``OUTSIDE_SCENE_MARGIN`` from ``scene_bounds`` ((2, 3) min/max
    of the walkable geometry), and one that overlaps an earlier element along its length.
    """
    items = list(items)
    warnings: list[str] = []
    if not items:
        return empty_elements(), warnings
    # options: None when no item has its own (the usual case: no per-item work)
    options = [item_options(it) for it in items] if set(map(len, items)) != {3} else None
    all_kinds = _item_kinds(items)
    all_segs, status, length = _segments_of(items, all_kinds)
    ok = np.ones(len(items), np.bool_)
    if scene_bounds is not None:
        lo = np.asarray(scene_bounds[0], np.float64) - OUTSIDE_SCENE_MARGIN
        hi = np.asarray(scene_bounds[1], np.float64) + OUTSIDE_SCENE_MARGIN
        outside = ((np.minimum(all_segs[:, 0], all_segs[:, 1]) < lo)
                   | (np.maximum(all_segs[:, 0], all_segs[:, 1]) > hi)).any(axis=1)
    else:
        outside = np.zeros(len(items), np.bool_)
    bad = np.nonzero((status != _SEG_OK) | ~(length >= MIN_ELEMENT_LENGTH) | outside)[0]
    for e in bad.tolist():  # few: messages in Python
        name, kind = items[e][0], int(items[e][1])
        msg = _refusal(name, kind, int(status[e]), float(length[e]))
        if msg is None:
            far = float(np.linalg.norm(all_segs[e].mean(axis=0)))
            msg = (f"{CLIMB_ELEMENT_KINDS[kind]} {name!r}: at {far:.0f} m from the origin "
                   f"it lies more than {OUTSIDE_SCENE_MARGIN:g} m outside the walkable "
                   f"geometry; skipped")
        warnings.append(msg)
        ok[e] = False
    idx = np.nonzero(ok)[0]
    if idx.size == 0:
        return empty_elements(), warnings
    segs = np.ascontiguousarray(all_segs[idx])
    kinds = all_kinds[idx]
    names = list(map(str, map(operator.itemgetter(0), items)))
    if idx.size < len(items):
        names = [names[e] for e in idx.tolist()]
    # overlaps: an element on one line with an earlier kept one over more than the merge
    # distance is skipped (candidate pairs from a kernel, decided in order here)
    pairs = _near_pairs(segs, MERGE_DISTANCE, MERGE_DISTANCE)
    earlier: dict[int, list[int]] = {}
    for i, j in pairs.tolist():
        earlier.setdefault(j, []).append(i)
    dropped: set[int] = set()
    for j in sorted(earlier):
        clash = next((i for i in earlier[j] if i not in dropped
                      and _overlap_length(segs[i], segs[j]) > MERGE_DISTANCE), None)
        if clash is not None:
            dropped.add(j)
            warnings.append(f"{CLIMB_ELEMENT_KINDS[kinds[j]]} {names[j]!r}: overlaps "
                            f"{names[clash]!r} along its length (two elements on one line); "
                            f"skipped")
    kept = np.ones(segs.shape[0], np.bool_)
    kept[list(dropped)] = False
    keep = np.nonzero(kept)[0]
    kinds = kinds[keep]
    rows = idx[keep]
    abilities = _ELEMENT_ABILITY_TABLE[kinds]
    moves = np.full(keep.shape[0], ALL_MOVES, np.uint8)
    links = np.full(keep.shape[0], ALL_LINKS, np.uint8)
    own = [] if options is None else options
    for k, e in enumerate(rows.tolist() if own else ()):
        o = own[e]  # an item with options of its own
        if o is _DEFAULT_OPTIONS:
            continue
        if o.abilities is not None:
            abilities[k] = o.abilities
        moves[k], links[k] = o.moves, o.links
    names_kept = names if not dropped else [names[k] for k in keep.tolist()]
    return ClimbElements(kinds, segs[keep], abilities, np.array(names_kept, dtype=str), moves,
                         links), warnings


def _overlap_length(s, t) -> float:
    """Length over which segments s and t lie on one line (0 when not collinear)."""
    ds, dt = s[1] - s[0], t[1] - t[0]
    ls = float(np.linalg.norm(ds))
    if ls == 0 or float(np.linalg.norm(dt)) == 0:
        return 0.0
    u = ds / ls
    for p in (t[0], t[1]):
        off = p - s[0]
        if np.linalg.norm(off - (off @ u) * u) > MERGE_DISTANCE:
            return 0.0
    a, b = sorted(((t[0] - s[0]) @ u, (t[1] - s[0]) @ u))
    return max(0.0, min(b, ls) - max(a, 0.0))


# ------------------------------------------------------------------------ geometry
@njit(cache=True)
def _closest_params(p0, p1, q0, q1):
    """Parameters (s, t) in [0, 1] of the closest points of segments p0p1 and q0q1."""
    d1 = p1 - p0
    d2 = q1 - q0
    r = p0 - q0
    a = _dot(d1, d1)
    e = _dot(d2, d2)
    f = _dot(d2, r)
    c = _dot(d1, r)
    b = _dot(d1, d2)
    denom = a * e - b * b
    s = 0.0
    if denom > 1e-12 * a * e:
        s = min(max((b * f - c * e) / denom, 0.0), 1.0)
    t = (b * s + f) / e
    if t < 0.0:
        t = 0.0
        s = min(max(-c / a, 0.0), 1.0)
    elif t > 1.0:
        t = 1.0
        s = min(max((b - c) / a, 0.0), 1.0)
    return s, t


@njit(cache=True)
def _near_pairs(ends, gap_xy, gap_z):
    """Element pairs (i < j, sorted) whose bounding boxes are within gap_xy across and gap_z
    in height of each other (a sweep along x)."""
    n = ends.shape[0]
    lo = np.empty((n, 3))
    hi = np.empty((n, 3))
    for i in range(n):
        for a in range(3):
            lo[i, a] = min(ends[i, 0, a], ends[i, 1, a])
            hi[i, a] = max(ends[i, 0, a], ends[i, 1, a])
    order = np.argsort(lo[:, 0], kind="mergesort")
    out = np.zeros((n * 4 + 16, 2), np.int64)
    k = 0
    for u in range(n):
        i = order[u]
        for w in range(u + 1, n):
            j = order[w]
            if lo[j, 0] > hi[i, 0] + gap_xy:
                break
            if lo[i, 1] > hi[j, 1] + gap_xy or lo[j, 1] > hi[i, 1] + gap_xy \
                    or lo[i, 2] > hi[j, 2] + gap_z or lo[j, 2] > hi[i, 2] + gap_z:
                continue
            if k == out.shape[0]:
                grown = np.zeros((out.shape[0] * 2, 2), np.int64)
                grown[:k] = out
                out = grown
            out[k, 0] = min(i, j)
            out[k, 1] = max(i, j)
            k += 1
    out = out[:k]
    key = out[:, 0] * n + out[:, 1]
    return out[np.argsort(key, kind="mergesort")]


def _contacts(ends, merge):
    """Pairs of touching elements: (i, j, s on i, t on j) for closest points within merge."""
    return _contacts_of(ends, _near_pairs(ends, merge, merge), merge)


@njit(cache=True)
def _contacts_of(ends, pairs, merge):
    out = np.zeros((pairs.shape[0] + 1, 4))
    k = 0
    for m in range(pairs.shape[0]):
        i, j = pairs[m, 0], pairs[m, 1]
        s, t = _closest_params(ends[i, 0], ends[i, 1], ends[j, 0], ends[j, 1])
        pa = ends[i, 0] + s * (ends[i, 1] - ends[i, 0])
        pb = ends[j, 0] + t * (ends[j, 1] - ends[j, 0])
        if np.sqrt(((pa - pb) ** 2).sum()) <= merge:
            out[k, 0] = i
            out[k, 1] = j
            out[k, 2] = s
            out[k, 3] = t
            k += 1
    return out[:k]


# A ray from a ladder or pipe looks this far (metres) for the surface enclosing it.
BURIED_PROBE = 10.0


def inside_solid(points, grid: TriangleGrid) -> np.ndarray:
    """Whether each point is inside a closed surface of the scene (outward normals): the
    first triangle that each of two horizontal rays (slightly skewed, ``BURIED_PROBE``
    long) meets is met from behind. Open planes (a single-sided wall) do not enclose."""
    p = np.ascontiguousarray(points, np.float64).reshape(-1, 3)
    if p.shape[0] == 0 or grid.tris.shape[0] == 0:
        return np.zeros(p.shape[0], np.bool_)
    return _inside_solid(p, _BURIED_RAYS, BURIED_PROBE, grid.tris, grid.lo, grid.hi,
                         grid.origin, grid.cell, grid.nx, grid.ny, grid.start, grid.items)


# the two ray directions of inside_solid (slightly skewed off the axes)
_BURIED_RAYS = np.array([(1.0, 0.0137, 0.0), (-0.0113, 1.0, 0.0)])


@njit(cache=True)
def _inside_solid(p, rays, length, tris, tri_lo, tri_hi, origin, cell, nx, ny, grid_start,
                  grid_items):
    """:func:`inside_solid` of the points ``p``: each ray of ``rays`` (``length`` long)
    in turn, stopping at the first that meets nothing or meets its first triangle from
    the front."""
    n = p.shape[0]
    inside = np.ones(n, np.bool_)
    stamp = np.full(tris.shape[0], -1, np.int64)
    mark = 0
    for k in range(n):
        for r in range(rays.shape[0]):
            dx, dy, dz = rays[r, 0], rays[r, 1], rays[r, 2]
            _w, t = _walk_one(p[k, 0], p[k, 1], p[k, 2], p[k, 0] + length * dx,
                              p[k, 1] + length * dy, p[k, 2] + length * dz, tris, tri_lo,
                              tri_hi, origin, cell, nx, ny, grid_start, grid_items, False,
                              stamp, mark)
            mark += 1
            if t < 0:
                inside[k] = False
                break
            fx, fy, fz = triangle_normal(tris[t], 0, 1, 2)
            facing = fx * dx + fy * dy + fz * dz
            if not facing > 0.0:  # met from the front: outside (along the outward normal)
                inside[k] = False
                break
    return inside


def probe_blocked(a, b, vertices, triangles, grid: TriangleGrid | None = None) -> np.ndarray:
    """Whether the collision probe of each link a[k] -> b[k] (hand points) hits a triangle.

    The probe is the segment between the hand points raised by ``PROBE_LIFT`` and trimmed
    by ``PROBE_TRIM`` at both ends (so the wall under a ledge and the element itself do not
    block it). ``grid``: the triangles already binned (:func:`triangle_grid`).
    """
    a = np.asarray(a, np.float64).reshape(-1, 3)
    b = np.asarray(b, np.float64).reshape(-1, 3)
    if a.shape[0] == 0 or len(triangles) == 0:
        return np.zeros(a.shape[0], np.bool_)
    d = b - a
    length = np.linalg.norm(d, axis=1)
    trim = np.minimum(PROBE_TRIM, 0.25 * length)[:, None] * d / np.maximum(length, 1e-12)[:, None]
    lift = np.array([0.0, 0.0, PROBE_LIFT])
    g = grid if grid is not None else triangle_grid(vertices, triangles)
    return _segment_hits(a + trim + lift, b - trim + lift, g.tris, g.lo, g.hi, g.origin,
                         g.cell, g.nx, g.ny, g.start, g.items)


# ------------------------------------------------------------------------ graph
@njit(cache=True)
def node_count(length: float, spacing: float = NODE_SPACING) -> int:
    """Nodes of a lone element ``length`` metres long: max(3, ceil(length / spacing) + 1)."""
    return max(3, int(math.ceil(length / spacing - 1e-9)) + 1)


@njit(cache=True)
def _element_params(lengths, spacing, merge, c_start, c_param):
    """Node parameters of each element (CSR ``base``/``t``): regular ones, with the contact
    parameters ``c_param[c_start[e]:c_start[e+1]]`` (sorted) replacing any regular one
    closer than the merge distance; contacts closer together than that become one."""
    n = lengths.shape[0]
    cap = c_param.shape[0]
    for e in range(n):
        cap += node_count(lengths[e], spacing)
    t_all = np.empty(cap)
    base = np.zeros(n + 1, np.int64)
    buf = np.empty(cap)
    k = 0
    for e in range(n):
        cnt = node_count(lengths[e], spacing)
        tol = merge / max(lengths[e], 1e-12)
        m = 0
        for q in range(c_start[e], c_start[e + 1]):  # merged contact parameters
            if m == 0 or c_param[q] - buf[m - 1] > tol:
                buf[m] = c_param[q]
                m += 1
        n_contact = m
        for r in range(cnt):
            t = r / (cnt - 1)
            near = False
            for q in range(n_contact):
                if abs(buf[q] - t) <= tol:
                    near = True
                    break
            if not near:
                buf[m] = t
                m += 1
        t_all[k:k + m] = np.sort(buf[:m])
        k += m
        base[e + 1] = k
    return base, t_all[:k]


@njit(cache=True)
def _merge_nodes(ends, base, t_all, contacts):
    """Raw nodes of the element parameters, merged where contacts join them: (node of each
    raw node, node positions). Node ids follow the first raw node of each; a merged node
    sits at the mean of its raw nodes."""
    n_raw = t_all.shape[0]
    parent = np.arange(n_raw)
    for c in range(contacts.shape[0]):
        ids = np.empty(2, np.int64)
        for side in range(2):
            e = int(contacts[c, side])
            t = contacts[c, 2 + side]
            best, best_d = base[e], np.inf
            for r in range(base[e], base[e + 1]):
                if abs(t_all[r] - t) < best_d:
                    best, best_d = r, abs(t_all[r] - t)
            x = best
            while parent[x] != x:  # find, halving the path
                parent[x] = parent[parent[x]]
                x = parent[x]
            ids[side] = x
        if ids[0] != ids[1]:
            parent[max(ids[0], ids[1])] = min(ids[0], ids[1])
    node_of = np.empty(n_raw, np.int64)
    n_nodes = 0
    for r in range(n_raw):
        x = r
        while parent[x] != x:
            x = parent[x]
        if x == r:
            node_of[r] = n_nodes
            n_nodes += 1
        else:
            node_of[r] = node_of[x]  # the root is the component's lowest raw node
    pos = np.zeros((n_nodes, 3))
    count = np.zeros(n_nodes)
    for e in range(base.shape[0] - 1):
        for r in range(base[e], base[e + 1]):
            v = node_of[r]
            for a in range(3):
                pos[v, a] += ends[e, 0, a] + t_all[r] * (ends[e, 1, a] - ends[e, 0, a])
            count[v] += 1.0
    for v in range(n_nodes):
        for a in range(3):
            pos[v, a] /= count[v]
    return node_of, pos


@njit(cache=True)
def _along_edges(base, node_of, abilities):
    """Edges between consecutive nodes of each element: rows (a, b, kind, element, abil,
    bidirectional)."""
    out = np.zeros((node_of.shape[0], 6), np.int64)
    k = 0
    for e in range(base.shape[0] - 1):
        for r in range(base[e], base[e + 1] - 1):
            a, b = node_of[r], node_of[r + 1]
            if a != b:
                out[k, 0], out[k, 1], out[k, 2] = a, b, CLIMB_EDGE_ALONG
                out[k, 3], out[k, 4], out[k, 5] = e, abilities[e], 1
                k += 1
    return out[:k]


@njit(cache=True)
def _implicit_links(kind, axes, base, node_of, pos, pairs, merge, max_dist, max_up,
                    max_drop, par_cos, moves, hold):
    """Implicit links between the test nodes (ends and centre) of element pairs that share
    no node: rows (a, b, kind, -1, abilities, bidirectional); see :func:`build_climb_graph`.
    A link of kind k exists only when both elements allow it (bit k of ``moves``) and needs
    the holding abilities (``hold``) of both.
    """
    out = np.zeros((pairs.shape[0] * 5 + 1, 6), np.int64)
    k = 0
    test_a = np.empty(5, np.int64)
    test_b = np.empty(5, np.int64)
    for m in range(pairs.shape[0]):
        i, j = pairs[m, 0], pairs[m, 1]
        shared = False
        for r in range(base[i], base[i + 1]):
            for s in range(base[j], base[j + 1]):
                if node_of[r] == node_of[s]:
                    shared = True
        if shared:
            continue  # touching elements: joined by a shared node already
        i0, i1 = node_of[base[i]], node_of[base[i + 1] - 1]
        j0, j1 = node_of[base[j]], node_of[base[j + 1] - 1]
        mid_i = node_of[base[i] + (base[i + 1] - base[i]) // 2]
        mid_j = node_of[base[j] + (base[j + 1] - base[j]) // 2]
        test_a[0], test_b[0] = i0, j0
        test_a[1], test_b[1] = i0, j1
        test_a[2], test_b[2] = i1, j0
        test_a[3], test_b[3] = i1, j1
        test_a[4], test_b[4] = mid_i, mid_j
        both_ledges = kind[i] == CLIMB_LEDGE and kind[j] == CLIMB_LEDGE
        parallel = abs(_dot(axes[i], axes[j])) >= par_cos
        allowed = moves[i] & moves[j]
        pair_abil = ABILITY_CLIMB | hold[i] | hold[j]
        for q in range(5):
            a, b = test_a[q], test_b[q]
            if a == b:
                continue
            dx = pos[b, 0] - pos[a, 0]
            dy = pos[b, 1] - pos[a, 1]
            dz = pos[b, 2] - pos[a, 2]
            horiz = math.hypot(dx, dy)
            dist = math.hypot(horiz, dz)
            if dist <= merge:
                continue
            low, high = (a, b) if dz >= 0 else (b, a)
            rise = abs(dz)
            up_angle = math.atan2(rise, horiz)
            abil = pair_abil
            if dist <= max_dist and up_angle <= max_up + 1e-12:
                edge = CLIMB_EDGE_JUMP
                if both_ledges and parallel and horiz > merge:
                    ax_h = math.hypot(axes[i, 0], axes[i, 1])
                    along = abs(dx * axes[i, 0] + dy * axes[i, 1]) / horiz if ax_h > 0 else 1.0
                    if along < 0.5:
                        edge = CLIMB_EDGE_BACK_JUMP
                        abil |= ABILITY_BACK_JUMP
                if (allowed >> edge) & 1:
                    out[k, 0], out[k, 1], out[k, 2] = low, high, edge
                    out[k, 3], out[k, 4], out[k, 5] = -1, abil, 1
                    k += 1
            elif horiz <= max_dist and rise <= max_drop and rise > 0 \
                    and (allowed >> CLIMB_EDGE_DROP) & 1:
                out[k, 0], out[k, 1], out[k, 2] = high, low, CLIMB_EDGE_DROP
                out[k, 3], out[k, 4], out[k, 5] = -1, abil, 0
                k += 1
    return out[:k]


@njit(cache=True)
def _corner_candidates(kind, ends, lengths, base, node_of, pairs, moves, merge, max_gap,
                       height_tol, turn_cos):
    """Pairs of ledges that could meet round a corner: level with each other (within
    ``height_tol``), turning by more than the angle of ``turn_cos``, sharing no node, both
    allowing along moves, and the crossing C of their lines (in plan) beyond an end of
    each, at most ``max_gap`` from it. Rows (i, j, end node a of i, end node b of j, C x, y,
    z, direction from a into i x, y, from b into j x, y)."""
    out = np.zeros((pairs.shape[0] + 1, 11))
    k = 0
    for m in range(pairs.shape[0]):
        i, j = pairs[m, 0], pairs[m, 1]
        if kind[i] != CLIMB_LEDGE or kind[j] != CLIMB_LEDGE \
                or (moves[i] & moves[j] & (1 << CLIMB_EDGE_ALONG)) == 0:
            continue
        zi, zj = ends[i, 0, 2], ends[j, 0, 2]
        if abs(zi - zj) > height_tol:
            continue
        uix = (ends[i, 1, 0] - ends[i, 0, 0]) / lengths[i]
        uiy = (ends[i, 1, 1] - ends[i, 0, 1]) / lengths[i]
        ujx = (ends[j, 1, 0] - ends[j, 0, 0]) / lengths[j]
        ujy = (ends[j, 1, 1] - ends[j, 0, 1]) / lengths[j]
        if abs(uix * ujx + uiy * ujy) > turn_cos:
            continue
        cr = uix * ujy - uiy * ujx
        dx = ends[j, 0, 0] - ends[i, 0, 0]
        dy = ends[j, 0, 1] - ends[i, 0, 1]
        s = (dx * ujy - dy * ujx) / cr  # C = p0 of i + s ui = p0 of j + t uj
        t = (dx * uiy - dy * uix) / cr
        if s > lengths[i]:
            gap_i, ra, sgn_i = s - lengths[i], base[i + 1] - 1, -1.0
        elif s < 0.0:
            gap_i, ra, sgn_i = -s, base[i], 1.0
        else:
            continue  # C on i's span: a T or a crossing in plan, not a corner
        if t > lengths[j]:
            gap_j, rb, sgn_j = t - lengths[j], base[j + 1] - 1, -1.0
        elif t < 0.0:
            gap_j, rb, sgn_j = -t, base[j], 1.0
        else:
            continue
        if gap_i > max_gap or gap_j > max_gap or (gap_i <= merge and gap_j <= merge):
            continue
        shared = False
        for r in range(base[i], base[i + 1]):
            for q in range(base[j], base[j + 1]):
                if node_of[r] == node_of[q]:
                    shared = True
        if shared:
            continue
        out[k, 0], out[k, 1] = i, j
        out[k, 2], out[k, 3] = node_of[ra], node_of[rb]
        out[k, 4] = ends[i, 0, 0] + s * uix
        out[k, 5] = ends[i, 0, 1] + s * uiy
        out[k, 6] = 0.5 * (zi + zj)
        out[k, 7], out[k, 8] = sgn_i * uix, sgn_i * uiy
        out[k, 9], out[k, 10] = sgn_j * ujx, sgn_j * ujy
        k += 1
    return out[:k]


@njit(cache=True)
def _corner_chains(a, c, b, fa, fb, step):
    """The chains of holds of corner moves (``climb_body.chain_blocked``): per corner, a
    (a's front), c turned from a's front to b's in ``steps`` = ceil(turn / ``step``) steps
    (steps + 1 holds: a's front, the turned ones, b's front), b (b's front). Returns (hold
    (H, 3), front (H, 3), start (n + 1,))."""
    n = a.shape[0]
    turn = np.empty(n)
    steps = np.empty(n, np.int64)
    start = np.zeros(n + 1, np.int64)
    for k in range(n):
        turn[k] = math.atan2(fa[k, 0] * fb[k, 1] - fa[k, 1] * fb[k, 0],
                             fa[k, 0] * fb[k, 0] + fa[k, 1] * fb[k, 1])
        steps[k] = max(1, int(math.ceil(abs(turn[k]) / step - 1e-9)))
        start[k + 1] = start[k] + steps[k] + 3
    hold = np.empty((start[n], 3))
    front = np.empty((start[n], 3))
    for k in range(n):
        h = start[k]
        for q in range(3):
            hold[h, q], front[h, q] = a[k, q], fa[k, q]
            hold[start[k + 1] - 1, q], front[start[k + 1] - 1, q] = b[k, q], fb[k, q]
        for r in range(1, steps[k] + 2):
            for q in range(3):
                hold[h + r, q] = c[k, q]
            if r == 1:
                front[h + r, 0], front[h + r, 1], front[h + r, 2] = fa[k, 0], fa[k, 1], fa[k, 2]
            elif r == steps[k] + 1:
                front[h + r, 0], front[h + r, 1], front[h + r, 2] = fb[k, 0], fb[k, 1], fb[k, 2]
            else:
                ang = turn[k] * ((r - 1) / steps[k])
                cs, sn = math.cos(ang), math.sin(ang)
                front[h + r, 0] = cs * fa[k, 0] - sn * fa[k, 1]
                front[h + r, 1] = sn * fa[k, 0] + cs * fa[k, 1]
                front[h + r, 2] = fa[k, 2]
    return hold, front, start


def corner_blocked(a, c, b, front_a, front_b, grid: TriangleGrid, params: ClimbParams):
    """Whether the move round an outside corner from hold ``a`` (front ``front_a``) over the
    corner point ``c`` to hold ``b`` (front ``front_b``) is blocked (rows of (n, 3)): the
    hand lines a -> c and c -> b (moved ``PROBE_OUT`` to each side, as ``probe_blocked``)
    cross a triangle, or the hanging body does, swept from a to c with a's front, pivoting
    about c from a's front to b's in steps of at most ``CORNER_PIVOT_STEP_DEG``, and swept
    from c to b with b's front (``climb_body.body_blocked``)."""
    a, c, b = (np.asarray(x, np.float64).reshape(-1, 3) for x in (a, c, b))
    fa = np.asarray(front_a, np.float64).reshape(-1, 3)
    fb = np.asarray(front_b, np.float64).reshape(-1, 3)
    n = a.shape[0]
    if n == 0 or grid.tris.shape[0] == 0:
        return np.zeros(n, np.bool_)
    hands = probe_blocked(np.concatenate([a + PROBE_OUT * fa, c + PROBE_OUT * fb]),
                          np.concatenate([c + PROBE_OUT * fa, b + PROBE_OUT * fb]), None,
                          grid.tris, grid)
    blocked = hands[:n] | hands[n:]
    open_ = np.nonzero(~blocked)[0]
    if open_.size:
        hold, front, start = _corner_chains(a[open_], c[open_], b[open_], fa[open_],
                                            fb[open_],
                                            math.radians(CORNER_PIVOT_STEP_DEG))
        blocked[open_] = chain_blocked(hold, front, start, grid, float(params.body_radius),
                                       float(params.hang_height))
    return blocked


def _corner_rows(cand, pos, abilities, el_front, grid, params):
    """Corner nodes and edges of the candidate corners (``_corner_candidates`` rows) that
    are outside corners (each ledge's hanging side faces away from the other ledge) and
    whose move is free (:func:`corner_blocked`): (positions of the new nodes, edge rows
    (a, b, kind, -1, abilities, 1) numbered from ``pos.shape[0]``, the outside rows of
    ``cand``)."""
    i, j = cand[:, 0].astype(np.int64), cand[:, 1].astype(np.int64)
    fi, fj = el_front[i], el_front[j]
    outside = (fi[:, 0] * cand[:, 9] + fi[:, 1] * cand[:, 10] < 0.0) \
        & (fj[:, 0] * cand[:, 7] + fj[:, 1] * cand[:, 8] < 0.0)
    cand, i, j, fi, fj = cand[outside], i[outside], j[outside], fi[outside], fj[outside]
    a, b = cand[:, 2].astype(np.int64), cand[:, 3].astype(np.int64)
    c = np.ascontiguousarray(cand[:, 4:7])
    free = ~corner_blocked(pos[a], c, pos[b], fi, fj, grid, params)
    a, b, c, i, j = a[free], b[free], c[free], i[free], j[free]
    merge = float(params.merge_distance)
    at_a = np.linalg.norm(c - pos[a], axis=1) <= merge
    at_b = ~at_a & (np.linalg.norm(c - pos[b], axis=1) <= merge)
    new = ~at_a & ~at_b
    node = np.where(at_a, a, b)
    node[new] = pos.shape[0] + np.arange(int(new.sum()))
    abil = ABILITY_CLIMB | abilities[i] | abilities[j]
    # per corner: a -> node, node -> b (one of them empty when the node is an end)
    frm = np.stack([a, node], axis=1).ravel()
    to = np.stack([node, b], axis=1).ravel()
    two = np.ones(frm.shape[0], np.int64)
    rows = np.stack([frm, to, two * CLIMB_EDGE_CORNER, -two, np.repeat(abil, 2), two],
                    axis=1)
    return c[new], rows[frm != to], cand


@njit(cache=True)
def _vertical_corner_candidates(kind, ends, lengths, pairs, moves, front, touching,
                                merge, max_gap, height_tol, turn_cos):
    """Pairs of a ledge and a ladder or pipe that could meet round a corner (Fuse's
    ledge-to-pipe corner): the ledge's height within ``height_tol`` of the vertical's span,
    the vertical's wall known (its ``front``), the ledge turning by more than the angle of
    ``turn_cos`` from the vertical's wall face (the horizontal across its front), no
    contact between them (``touching``: (E,) element pair keys i * E + j), both allowing
    along moves, and the crossing C in plan of the ledge's line with the line across the
    vertical's front through P, the vertical's point at the ledge's height, beyond an end
    of the ledge and at most ``max_gap`` from that end and from P (and farther than
    ``merge`` from P). Outside corners (each hanging side faces away from the other
    element) and inside ones (each faces the other) are kept. Rows (ledge, vertical, the
    ledge's end at the corner (0: p0, 1: p1), C x, y, z, P's parameter on the vertical,
    outside 1 / inside 0)."""
    n_el = kind.shape[0]
    out = np.zeros((pairs.shape[0] + 1, 8))
    k = 0
    for m in range(pairs.shape[0]):
        i, j = pairs[m, 0], pairs[m, 1]
        if (kind[i] == CLIMB_LEDGE) == (kind[j] == CLIMB_LEDGE):
            continue
        if kind[i] != CLIMB_LEDGE:
            i, j = j, i
        if (moves[i] & moves[j] & (1 << CLIMB_EDGE_ALONG)) == 0:
            continue
        fjx, fjy = front[j, 0], front[j, 1]
        fix, fiy = front[i, 0], front[i, 1]
        if fjx * fjx + fjy * fjy < 0.25 or fix * fix + fiy * fiy < 0.25:
            continue  # a ladder or pipe without a wall: no face to turn onto
        z = ends[i, 0, 2]
        zb, zt = ends[j, 0, 2], ends[j, 1, 2]
        if z < zb - height_tol or z > zt + height_tol:
            continue
        a_, b_ = min(i, j), max(i, j)
        met = False
        for q in range(touching.shape[0]):
            if touching[q] == a_ * n_el + b_:
                met = True
                break
        if met:
            continue
        pz = min(max(z, zb), zt)
        uix = (ends[i, 1, 0] - ends[i, 0, 0]) / lengths[i]
        uiy = (ends[i, 1, 1] - ends[i, 0, 1]) / lengths[i]
        ujx, ujy = -fjy, fjx  # across the vertical's front, along its wall
        if abs(uix * ujx + uiy * ujy) > turn_cos:
            continue
        px, py = ends[j, 0, 0], ends[j, 0, 1]
        cr = uix * ujy - uiy * ujx
        dx = px - ends[i, 0, 0]
        dy = py - ends[i, 0, 1]
        s = (dx * ujy - dy * ujx) / cr  # C = p0 of i + s ui = P + w uj
        w = (dx * uiy - dy * uix) / cr
        if s > lengths[i]:
            gap_i, ra, sgn_i = s - lengths[i], 1, -1.0
        elif s < 0.0:
            gap_i, ra, sgn_i = -s, 0, 1.0
        else:
            continue  # C on the ledge's span: the vertical is beside it, not round a corner
        gap_j = abs(w)
        if gap_i > max_gap or gap_j > max_gap or gap_j <= merge:
            continue
        cx, cy = ends[i, 0, 0] + s * uix, ends[i, 0, 1] + s * uiy
        dix, diy = sgn_i * uix, sgn_i * uiy  # from C into the ledge
        djx, djy = (px - cx) / gap_j, (py - cy) / gap_j  # from C to P
        fi_dj = fix * djx + fiy * djy
        fj_di = fjx * dix + fjy * diy
        if fi_dj < 0.0 and fj_di < 0.0:
            outside = 1.0
        elif fi_dj > 0.0 and fj_di > 0.0:
            outside = 0.0
        else:
            continue
        out[k, 0], out[k, 1], out[k, 2] = i, j, ra
        out[k, 3], out[k, 4], out[k, 5] = cx, cy, z
        out[k, 6] = (pz - zb) / (zt - zb)
        out[k, 7] = outside
        k += 1
    return out[:k]


def _vertical_corner_rows(cand, base, t_all, node_of, pos, abilities, el_front, grid,
                          params, first_new):
    """Corner nodes and edges of the ledge-to-ladder/pipe candidates
    (``_vertical_corner_candidates`` rows) whose move is free: an outside corner is the
    move of a ledge corner (:func:`corner_blocked`: to C, pivot, on to P; edges end -> C ->
    P), an inside one a straight move from the ledge's end to P (the hand line as
    :func:`probe_blocked` and the body swept by ``climb_body.body_blocked``; one edge).
    Returns (positions of the new nodes, numbered from ``first_new``; edge rows (a, b,
    kind, -1, abilities, 1); the (ledge end node, P node) pairs of all candidates)."""
    i = cand[:, 0].astype(np.int64)
    j = cand[:, 1].astype(np.int64)
    a = node_of[np.where(cand[:, 2] > 0.5, base[i + 1] - 1, base[i])]
    # P: the vertical's raw node nearest its parameter (the corner's own, added to it)
    p = np.empty(cand.shape[0], np.int64)
    for k in range(cand.shape[0]):  # few
        r = np.arange(base[j[k]], base[j[k] + 1])
        p[k] = node_of[r[np.argmin(np.abs(t_all[r] - cand[k, 6]))]]
    c = np.ascontiguousarray(cand[:, 3:6])
    fi, fj = el_front[i], el_front[j]
    outside = cand[:, 7] > 0.5
    blocked = np.zeros(cand.shape[0], np.bool_)
    o = np.nonzero(outside)[0]
    if o.size:
        blocked[o] = corner_blocked(pos[a[o]], c[o], pos[p[o]], fi[o], fj[o], grid, params)
    n_in = np.nonzero(~outside)[0]
    if n_in.size:
        hands = probe_blocked(pos[a[n_in]] + PROBE_OUT * fi[n_in],
                              pos[p[n_in]] + PROBE_OUT * fj[n_in], None, grid.tris, grid)
        rest = n_in[~hands]
        blocked[n_in[hands]] = True
        blocked[rest] = body_blocked(pos[a[rest]], pos[p[rest]], fi[rest], fj[rest], grid,
                                     float(params.body_radius), float(params.hang_height))
    abil = ABILITY_CLIMB | abilities[i] | abilities[j]
    merge = float(params.merge_distance)
    new_pos: list[np.ndarray] = []
    rows: list[tuple] = []
    for k in np.nonzero(~blocked)[0].tolist():  # few: one or two edges per corner
        if outside[k]:
            if np.linalg.norm(c[k] - pos[a[k]]) <= merge:
                mid = a[k]
            else:
                mid = first_new + len(new_pos)
                new_pos.append(c[k])
            hops = ((a[k], mid), (mid, p[k]))
        else:
            hops = ((a[k], p[k]),)
        rows += [(u, v, CLIMB_EDGE_CORNER, -1, abil[k], 1) for u, v in hops if u != v]
    return (np.array(new_pos, np.float64).reshape(-1, 3),
            np.array(rows, np.int64).reshape(-1, 6), np.stack([a, p], axis=1))


def _node_elements(base, node_of, n_nodes) -> np.ndarray:
    """(N,) the first element owning each node."""
    owner = np.repeat(np.arange(base.shape[0] - 1), np.diff(base))
    nodes, first = np.unique(node_of, return_index=True)
    node_el = np.full(n_nodes, -1, np.int64)
    node_el[nodes] = owner[first]
    return node_el


def _element_fronts(elements, grid, params, fronts, need) -> np.ndarray:
    """(E, 3) hanging side of the elements ``need`` (climb_body.py), zero rows elsewhere."""
    mask = np.zeros(elements.kind.shape[0], np.bool_)
    mask[need] = True
    need = np.nonzero(mask)[0]
    known = None if fronts is None else np.asarray(fronts, np.float64).reshape(-1, 3)[need]
    el_front = np.zeros((elements.kind.shape[0], 3))
    el_front[need] = hang_fronts(np.asarray(elements.kind)[need],
                                 np.asarray(elements.ends).reshape(-1, 2, 3)[need], grid,
                                 float(params.body_radius), known)
    return el_front


@njit(cache=True)
def _edge_lengths(pos, edge_nodes):
    """(K,) Euclidean length of each edge (the arithmetic of ``np.linalg.norm(b - a,
    axis=1)``)."""
    out = np.empty(edge_nodes.shape[0])
    for k in range(edge_nodes.shape[0]):
        a, b = edge_nodes[k, 0], edge_nodes[k, 1]
        dx = pos[b, 0] - pos[a, 0]
        dy = pos[b, 1] - pos[a, 1]
        dz = pos[b, 2] - pos[a, 2]
        out[k] = math.sqrt(dx * dx + dy * dy + dz * dz)
    return out


def _first_of_each_pair(rows, n_nodes) -> np.ndarray:
    """Indices (ascending) of the first row of each unordered node pair."""
    if rows.shape[0] == 0:
        return np.zeros(0, np.int64)
    key = np.minimum(rows[:, 0], rows[:, 1]) * max(n_nodes, 1) + np.maximum(rows[:, 0],
                                                                             rows[:, 1])
    _, first = np.unique(key, return_index=True)
    return np.sort(first)


def build_climb_graph(elements: ClimbElements, params: ClimbParams | None = None,
                      vertices=None, triangles=None,
                      grid: TriangleGrid | None = None, fronts=None) -> ClimbGraph:
    """The climb graph of ``elements`` (see the module doc and docs/climbing.md).

    With ``vertices``/``triangles`` given, implicit links whose collision probe (the line
    between the hands, and the hanging body swept along the move: ``climb_body.py``) hits
    a triangle are left out (``grid``: those triangles already binned). ``fronts`` (E, 3):
    hanging sides already known (a found ledge's wall front), zero rows where not. With
    the scene, corners are built too: round a block's outside corner between two ledges,
    and between a ledge and a ladder or pipe round an outside corner or across an inside
    one (the ladder or pipe gets a node at the ledge's height; docs/climbing.md).
    """
    params = params or ClimbParams()
    ends = np.ascontiguousarray(elements.ends, np.float64).reshape(-1, 2, 3)
    n_el = ends.shape[0]
    lengths = np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1)
    contacts = _contacts(ends, float(params.merge_distance)) if n_el > 1 \
        else np.zeros((0, 4))
    scene = vertices is not None and triangles is not None and len(triangles)
    g = None
    early_need = np.zeros(0, np.int64)  # elements whose fronts are needed before the nodes
    early = None
    vcand = np.zeros((0, 8))
    if n_el > 1:
        reach = float(params.max_link_distance)
        near = max(reach, 2.0 * float(params.corner_gap))  # a corner's ends, too
        pairs = _near_pairs(ends, near, max(near, float(params.max_drop_height)))
        is_ledge = np.asarray(elements.kind) == CLIMB_LEDGE
        mixed = pairs[is_ledge[pairs[:, 0]] != is_ledge[pairs[:, 1]]]
        if scene and mixed.shape[0]:
            # corners between a ledge and a ladder or pipe: found before the nodes, as a
            # corner adds a node to the ladder or pipe at the ledge's height
            g = grid if grid is not None else triangle_grid(vertices, triangles)
            early_need = np.unique(mixed)
            early = _element_fronts(elements, g, params, fronts, early_need)
            ci, cj = contacts[:, 0].astype(np.int64), contacts[:, 1].astype(np.int64)
            vcand = _vertical_corner_candidates(
                np.asarray(elements.kind, np.int64), ends, lengths, mixed,
                np.asarray(elements.moves, np.int64), early,
                np.minimum(ci, cj) * n_el + np.maximum(ci, cj),
                float(params.merge_distance), float(params.corner_gap), CORNER_HEIGHT_TOL,
                math.cos(math.radians(CORNER_MIN_TURN_DEG)))

    # 1. per element: regular parameters, with contact parameters (and a ladder's or
    #    pipe's corner point) replacing any regular one closer than the merge distance
    c_el = np.concatenate([contacts[:, 0], contacts[:, 1], vcand[:, 1]]).astype(np.int64)
    c_t = np.concatenate([contacts[:, 2], contacts[:, 3], vcand[:, 6]])
    order = np.lexsort((c_t, c_el))
    c_start = np.searchsorted(c_el[order], np.arange(n_el + 1)).astype(np.int64)
    base, t_all = _element_params(lengths, float(params.spacing),
                                  float(params.merge_distance), c_start,
                                  np.ascontiguousarray(c_t[order]))
    # 2. raw nodes, merged where elements touch
    node_of, pos = _merge_nodes(ends, base, t_all, contacts)
    nodes32 = node_of.astype(np.int32)
    bounds = base.tolist()
    element_nodes = [nodes32[bounds[e]:bounds[e + 1]] for e in range(n_el)]
    abilities = np.asarray(elements.abilities, np.int64)
    moves = np.asarray(elements.moves, np.int64)
    along = _along_edges(base, node_of, abilities)
    along = along[(moves[along[:, 3]] >> CLIMB_EDGE_ALONG) & 1 == 1]
    along = along[_first_of_each_pair(along, pos.shape[0])]

    # 3. implicit links between test nodes (ends and centre) of different elements:
    #    end-end and centre-centre pairs, as in Fuse; and corners between ledges
    implicit = np.zeros((0, 6), np.int64)
    corner_cand = np.zeros((0, 11))
    if n_el > 1:
        axes = ends[:, 1] - ends[:, 0]
        axes = np.ascontiguousarray(axes / np.maximum(lengths, 1e-12)[:, None])
        implicit = _implicit_links(
            np.asarray(elements.kind, np.int64), axes, base, node_of, pos, pairs,
            float(params.merge_distance), reach, math.radians(params.max_link_angle),
            float(params.max_drop_height), math.cos(math.radians(BACK_JUMP_PARALLEL_DEG)),
            moves, abilities & ~np.int64(ALONG_ONLY_ABILITIES))
        corner_cand = _corner_candidates(
            np.asarray(elements.kind, np.int64), ends, lengths, base, node_of, pairs, moves,
            float(params.merge_distance), float(params.corner_gap), CORNER_HEIGHT_TOL,
            math.cos(math.radians(CORNER_MIN_TURN_DEG)))
    rows = np.concatenate([along, implicit])
    keep = _first_of_each_pair(rows, pos.shape[0])
    keep = keep[keep >= along.shape[0]]  # an implicit link only where no edge is yet
    implicit = rows[keep]
    corner = np.zeros((0, 6), np.int64)
    if scene and (implicit.shape[0] or corner_cand.shape[0] or vcand.shape[0]):
        g = g if g is not None else grid if grid is not None \
            else triangle_grid(vertices, triangles)
        node_el = _node_elements(base, node_of, pos.shape[0])
        need = np.concatenate([node_el[implicit[:, :2].ravel()],
                               corner_cand[:, :2].ravel().astype(np.int64), early_need])
        known = fronts
        if early is not None:  # those already worked out
            known = np.zeros((n_el, 3)) if fronts is None \
                else np.array(fronts, np.float64).reshape(n_el, 3)
            known[early_need] = early[early_need]
        el_front = _element_fronts(elements, g, params, known, need)
        if corner_cand.shape[0]:
            new_pos, corner, outside = _corner_rows(corner_cand, pos, abilities, el_front, g,
                                                    params)
            # the ends of an outside corner get the corner move, not a jump across it
            n = max(pos.shape[0], 1)
            ca, cb = outside[:, 2].astype(np.int64), outside[:, 3].astype(np.int64)
            taken = np.minimum(ca, cb) * n + np.maximum(ca, cb)
            key = np.minimum(implicit[:, 0], implicit[:, 1]) * n \
                + np.maximum(implicit[:, 0], implicit[:, 1])
            implicit = implicit[~np.isin(key, taken)]
            pos = np.concatenate([pos, new_pos])
        if vcand.shape[0]:
            # a ledge's end and the ladder's or pipe's node round the corner get the
            # corner move, not a straight jump
            new_pos, more, ends_ap = _vertical_corner_rows(
                vcand, base, t_all, node_of, pos, abilities, el_front, g, params,
                pos.shape[0])
            n = max(pos.shape[0], 1)
            taken = ends_ap.min(axis=1) * n + ends_ap.max(axis=1)
            key = np.minimum(implicit[:, 0], implicit[:, 1]) * n \
                + np.maximum(implicit[:, 0], implicit[:, 1])
            implicit = implicit[~np.isin(key, taken)]
            pos = np.concatenate([pos, new_pos])
            corner = np.concatenate([corner, more])
        a, b = implicit[:, 0], implicit[:, 1]
        front = el_front[node_el[implicit[:, :2]]] if implicit.shape[0] \
            else np.zeros((0, 2, 3))
        # the hands hold the element from its hanging side: the hand line is moved
        # PROBE_OUT that way, off the plane of the wall under a ledge
        blocked = probe_blocked(pos[a] + PROBE_OUT * front[:, 0],
                                pos[b] + PROBE_OUT * front[:, 1], vertices, triangles, g)
        rest = np.nonzero(~blocked)[0]
        blocked[rest] = body_blocked(pos[a[rest]], pos[b[rest]], front[rest, 0],
                                     front[rest, 1], g, float(params.body_radius),
                                     float(params.hang_height))
        implicit = implicit[~blocked]
    rows = np.concatenate([along, implicit, corner])
    en = rows[:, :2].astype(np.int32)
    length = _edge_lengths(pos, en)
    return ClimbGraph(pos, en.reshape(-1, 2), rows[:, 2].astype(np.int8),
                      rows[:, 3].astype(np.int32), length, rows[:, 4].astype(np.uint16),
                      rows[:, 5].astype(np.bool_), element_nodes)


# ------------------------------------------------------------------------ navmesh join
@njit(cache=True)
def _before(d, t, d2, t2):
    """Whether (distance d, triangle t) comes before (d2, t2): nearer, then lower index."""
    return d < d2 or (d == d2 and t < t2)


@njit(cache=True)
def _ground_walk(px, py, zlo, zhi, n_band, reach, tris, tri_zlo, tri_zhi, tri_xy, tri_poly,
                 start, items, origin, cell, nx, ny, stamp, mark, lst_d, lst_t, lst_p, count):
    """For each of the ``n_band`` height bands [zlo[b], zhi[b]]: the nearest (in XY) surface
    points to (px, py) within ``reach`` of the ``K`` nearest polygons, one per polygon (its
    nearest triangle), nearest first (ties: the lowest triangle): ``lst_d[b, :count[b]]``,
    ``lst_t``, ``lst_p`` (K = ``lst_d.shape[1]``). So entry r is what a search leaving out
    the polygons of entries 0..r-1 finds. The bands share one walk of the grid;
    ``stamp``/``mark`` as in ``climb_geom._walk_one``."""
    n_keep = lst_d.shape[1]
    for b in range(n_band):
        count[b] = 0
    i0, i1, j0, j1 = _cell_range(px - reach, px + reach, py - reach, py + reach, origin,
                                 cell, nx, ny)
    for i in range(i0, i1 + 1):
        for j in range(j0, j1 + 1):
            c = j * nx + i
            for m in range(start[c], start[c + 1]):
                t = items[m]
                if stamp[t] == mark:
                    continue
                stamp[t] = mark
                reach_now = 0.0
                in_band = False
                for b in range(n_band):
                    if tri_zlo[t] <= zhi[b] and tri_zhi[t] >= zlo[b]:
                        in_band = True
                        reach_now = max(reach_now, lst_d[b, n_keep - 1]
                                        if count[b] == n_keep else reach)
                if not in_band or tri_xy[t, 0] > px + reach_now \
                        or tri_xy[t, 1] < px - reach_now or tri_xy[t, 2] > py + reach_now \
                        or tri_xy[t, 3] < py - reach_now:
                    continue
                x, y, z, d = _closest_on_triangle_xy(px, py, tris, t)
                for b in range(n_band):
                    if d <= reach and zlo[b] <= z <= zhi[b]:
                        _keep_nearest(b, d, t, tri_poly, x, y, z, lst_d, lst_t, lst_p, count)


@njit(cache=True)
def _keep_nearest(b, d, t, tri_poly, x, y, z, lst_d, lst_t, lst_p, count):
    """Enter (d, t) in band b's list of the nearest polygons (:func:`_ground_walk`)."""
    n_keep = lst_d.shape[1]
    cnt = count[b]
    poly = tri_poly[t]
    same = -1
    for m in range(cnt):
        if tri_poly[lst_t[b, m]] == poly:
            same = m
            break
    if same >= 0:
        if not _before(d, t, lst_d[b, same], lst_t[b, same]):
            return
        for m in range(same, cnt - 1):  # its polygon's entry goes, the new one comes in
            lst_d[b, m], lst_t[b, m] = lst_d[b, m + 1], lst_t[b, m + 1]
            lst_p[b, m, 0], lst_p[b, m, 1] = lst_p[b, m + 1, 0], lst_p[b, m + 1, 1]
            lst_p[b, m, 2] = lst_p[b, m + 1, 2]
        cnt -= 1
    elif cnt == n_keep:
        if not _before(d, t, lst_d[b, cnt - 1], lst_t[b, cnt - 1]):
            return
        cnt -= 1
    m = cnt
    while m > 0 and _before(d, t, lst_d[b, m - 1], lst_t[b, m - 1]):
        lst_d[b, m], lst_t[b, m] = lst_d[b, m - 1], lst_t[b, m - 1]
        lst_p[b, m, 0], lst_p[b, m, 1], lst_p[b, m, 2] = \
            lst_p[b, m - 1, 0], lst_p[b, m - 1, 1], lst_p[b, m - 1, 2]
        m -= 1
    lst_d[b, m], lst_t[b, m] = d, t
    lst_p[b, m, 0], lst_p[b, m, 1], lst_p[b, m, 2] = x, y, z
    count[b] = cnt + 1


@njit(cache=True)
def _ground_blocked(nx_, ny_, nz, gx, gy, gz, lift, l_tris, l_lo, l_hi, l_origin, l_cell,
                    l_nx, l_ny, l_start, l_items, stamp, mark):
    """Whether the straight move from node (nx_, ny_, nz) to ground (gx, gy, gz), both
    raised by ``lift``, crosses a level triangle: the same segment and answer as
    :func:`probe_blocked` of the raised points (lifted by ``PROBE_LIFT``, trimmed by
    ``PROBE_TRIM``), in the same floating-point order."""
    az, bz = nz + lift, gz + lift
    dx, dy, dz = gx - nx_, gy - ny_, bz - az
    length = math.sqrt(dx * dx + dy * dy + dz * dz)
    m = min(PROBE_TRIM, 0.25 * length)
    den = max(length, 1e-12)
    tx, ty, tz = m * dx / den, m * dy / den, m * dz / den
    _w, t = _walk_one(nx_ + tx, ny_ + ty, az + tz + PROBE_LIFT, gx - tx, gy - ty,
                      bz - tz + PROBE_LIFT, l_tris, l_lo, l_hi, l_origin, l_cell, l_nx, l_ny,
                      l_start, l_items, True, stamp, mark)
    return t >= 0


@njit(cache=True)
def _join_kernel(pos, el_kind, el_links, el_hold, node_base, node_flat, tris, tri_poly,
                 origin, cell, nx, ny, start, items, reach, step, drop, climb_height, lift,
                 probe, l_tris, l_lo, l_hi, l_origin, l_cell, l_nx, l_ny, l_start, l_items,
                 link_base):
    """The navmesh links of every element's nodes in one pass (see :func:`join_navmesh`):
    per element in order, a ledge's nodes as mount then as hang, a ladder's or pipe's
    bottom node as ladder foot and its top node as mount; each node's bands share one
    ground walk, and with ``probe`` each answer whose straight move is blocked gives way
    to the nearest ground of another polygon, up to ``GROUND_RETRIES`` times. Returns the
    links (kind, node, point, poly, bidirectional, length, abilities) whose element allows
    their kind, and per element whether any ground was found."""
    n_el = el_kind.shape[0]
    n_tri = tris.shape[0]
    tri_zlo = np.empty(n_tri)
    tri_zhi = np.empty(n_tri)
    tri_xy = np.empty((n_tri, 4))  # x min, x max, y min, y max
    for t in range(n_tri):
        tri_zlo[t] = min(tris[t, 0, 2], tris[t, 1, 2], tris[t, 2, 2])
        tri_zhi[t] = max(tris[t, 0, 2], tris[t, 1, 2], tris[t, 2, 2])
        tri_xy[t, 0] = min(tris[t, 0, 0], tris[t, 1, 0], tris[t, 2, 0])
        tri_xy[t, 1] = max(tris[t, 0, 0], tris[t, 1, 0], tris[t, 2, 0])
        tri_xy[t, 2] = min(tris[t, 0, 1], tris[t, 1, 1], tris[t, 2, 1])
        tri_xy[t, 3] = max(tris[t, 0, 1], tris[t, 1, 1], tris[t, 2, 1])
    n_q = 0
    for e in range(n_el):
        n_q += 2 * (node_base[e + 1] - node_base[e]) if el_kind[e] == CLIMB_LEDGE else 2
    kind = np.empty(n_q, np.int8)
    node = np.empty(n_q, np.int32)
    point = np.empty((n_q, 3))
    poly = np.empty(n_q, np.int32)
    bidir = np.empty(n_q, np.bool_)
    length = np.empty(n_q)
    abil = np.empty(n_q, np.uint16)
    linked = np.zeros(n_el, np.bool_)
    stamp = np.full(n_tri, -1, np.int64)
    l_stamp = np.full(l_tris.shape[0], -1, np.int64)
    mark, l_mark = 0, 0
    zlo = np.empty(2)
    zhi = np.empty(2)
    # per band: the nearest ground of the nearest polygons (_ground_walk)
    lst_d = np.empty((2, GROUND_RETRIES + 1))
    lst_t = np.empty((2, GROUND_RETRIES + 1), np.int64)
    lst_p = np.empty((2, GROUND_RETRIES + 1, 3))
    count = np.zeros(2, np.int64)
    # per element: its queries' answers (triangle, point), laid out as the rows
    cap = 2
    for e in range(n_el):
        cap = max(cap, 2 * (node_base[e + 1] - node_base[e]))
    q_t = np.empty(cap, np.int64)
    q_p = np.empty((cap, 3))
    q_node = np.empty(cap, np.int64)
    q_kind = np.empty(cap, np.int64)
    k = 0
    for e in range(n_el):
        a, b = node_base[e], node_base[e + 1]
        ledge = el_kind[e] == CLIMB_LEDGE
        if ledge:
            cnt = b - a
            walks = cnt
        else:
            cnt = 1
            walks = 2
        for w in range(walks):
            if ledge:
                v = node_flat[a + w]
                n_band = 2
                rows0, rows1 = w, cnt + w  # mount, hang
                q_kind[rows0], q_kind[rows1] = CLIMB_LINK_MOUNT, CLIMB_LINK_HANG
                q_node[rows0], q_node[rows1] = v, v
            else:
                v = node_flat[a] if w == 0 else node_flat[b - 1]
                n_band = 1
                rows0, rows1 = w, -1
                q_kind[rows0] = CLIMB_LINK_LADDER_FOOT if w == 0 else CLIMB_LINK_MOUNT
                q_node[rows0] = v
            z = pos[v, 2]
            zlo[0], zhi[0] = z - step, z + step
            zlo[1], zhi[1] = z - drop, z - step - 1e-6
            _ground_walk(pos[v, 0], pos[v, 1], zlo, zhi, n_band, reach, tris, tri_zlo,
                         tri_zhi, tri_xy, tri_poly, start, items, origin, cell, nx, ny, stamp,
                         mark, lst_d, lst_t, lst_p, count)
            mark += 1
            for band in range(n_band):
                # the nearest ground, or when the move there is blocked the next polygon's
                # nearest, up to GROUND_RETRIES times
                t, r = -1, 0
                while r < count[band]:
                    t = lst_t[band, r]
                    if not probe or not _ground_blocked(
                            pos[v, 0], pos[v, 1], pos[v, 2], lst_p[band, r, 0],
                            lst_p[band, r, 1], lst_p[band, r, 2], lift, l_tris, l_lo, l_hi,
                            l_origin, l_cell, l_nx, l_ny, l_start, l_items, l_stamp, l_mark):
                        break
                    l_mark += 1
                    t = -1
                    r += 1
                l_mark += 1
                if t >= 0:
                    px, py, pz = lst_p[band, r, 0], lst_p[band, r, 1], lst_p[band, r, 2]
                else:
                    px, py, pz = 0.0, 0.0, 0.0
                row = rows0 if band == 0 else rows1
                q_t[row] = t
                q_p[row, 0], q_p[row, 1], q_p[row, 2] = px, py, pz
        for r in range(2 * cnt):
            t = q_t[r]
            if t < 0:
                continue
            linked[e] = True  # (the warning is about the ground, not the element's links)
            kd = q_kind[r]
            if not (el_links[e] >> kd) & 1:
                continue
            v = q_node[r]
            kind[k] = kd
            node[k] = v
            point[k, 0], point[k, 1], point[k, 2] = q_p[r, 0], q_p[r, 1], q_p[r, 2]
            poly[k] = tri_poly[t]
            bidir[k] = kd != CLIMB_LINK_HANG or pos[v, 2] - q_p[r, 2] <= climb_height
            dx = q_p[r, 0] - pos[v, 0]
            dy = q_p[r, 1] - pos[v, 1]
            dz = q_p[r, 2] - pos[v, 2]
            length[k] = math.sqrt(dx * dx + dy * dy + dz * dz)
            abil[k] = link_base[kd] | el_hold[e]
            k += 1
    return (kind[:k].copy(), node[:k].copy(), point[:k].copy(), poly[:k].copy(),
            bidir[:k].copy(), length[:k].copy(), abil[:k].copy(), linked)


# a node's nearest ground behind a wall is skipped for the next nearest this many times
GROUND_RETRIES = 3


def join_navmesh(navmesh, elements: ClimbElements, graph: ClimbGraph,
                 params: ClimbParams | None = None, level=None,
                 surface: SurfaceGrid | None = None) -> tuple[ClimbLinks, list[str]]:
    """Links between climb nodes and walkable ground, and a warning per element with none.

    * ``mount`` (both ways): ground level with a ledge node (within ``step_height``) and
      within ``reach``; also the top node of a ladder or pipe.
    * ``ladder_foot`` (both ways): ground level with the bottom node of a ladder or pipe.
    * ``hang``: ground below a ledge node (deeper than ``step_height``) within ``reach``;
      both ways when at most ``max_climb_height`` below (jump up to hang, or let go),
      one way (a drop) when at most ``max_drop_height`` below.

    ``level`` (vertices, triangles, grid of them): each link's straight move is probed
    against the level (the segment of :func:`probe_blocked` between node and ground, both
    raised by ``step_height``); ground behind a wall gives way to the nearest ground of
    another polygon, up to ``GROUND_RETRIES`` times. None: no probe. ``surface``: the
    navmesh's :class:`SurfaceGrid` when already built. One numba pass
    (:func:`_join_kernel`).
    """
    params = params or ClimbParams()
    sg = surface if surface is not None else surface_grid(navmesh)
    pos = np.ascontiguousarray(graph.node_position, np.float64).reshape(-1, 3)
    kind_el = np.asarray(elements.kind, np.int64)
    n_el = kind_el.shape[0]
    counts = np.fromiter(map(len, graph.element_nodes), np.int64, len(graph.element_nodes))
    node_base = np.zeros(n_el + 1, np.int64)
    np.cumsum(counts, out=node_base[1:])
    flat = np.concatenate(graph.element_nodes).astype(np.int64) if n_el \
        else np.zeros(0, np.int64)
    g: TriangleGrid = _NO_GRID
    probe = False
    if level is not None and level[2] is not None and level[2].tris.shape[0] > 0:
        g, probe = level[2], True
    hold = np.asarray(elements.abilities, np.int64) & ~np.int64(ALONG_ONLY_ABILITIES)
    kind, node, point, poly, bidir, length, abil, linked = _join_kernel(
        pos, kind_el, np.asarray(elements.links, np.int64), hold, node_base, flat, sg.tris,
        sg.poly, sg.origin, sg.cell, sg.nx, sg.ny, sg.grid_start, sg.grid_items,
        float(params.reach), float(params.step_height), float(params.max_drop_height),
        float(params.max_climb_height), float(params.step_height), probe, g.tris, g.lo,
        g.hi, g.origin, g.cell, g.nx, g.ny, g.start, g.items, _LINK_BASE)
    warnings = [f"{CLIMB_ELEMENT_KINDS[int(elements.kind[e])]} "
                f"{str(elements.name[e])!r}: no walkable ground within "
                f"{params.reach:g} m across and {params.max_drop_height:g} m down; it "
                f"has no entry or exit" for e in np.nonzero(~linked)[0].tolist()]
    return ClimbLinks(kind, node, point, poly, bidir, length, abil), warnings


_LINK_BASE = np.array(CLIMB_LINK_BASE_ABILITIES, np.int64)
# no level to probe against (join_navmesh without ``level``)
_NO_GRID = triangle_grid(np.zeros((0, 3)), np.zeros((0, 3), np.int64))


# ------------------------------------------------------------------------ on the NavMesh
def climb_arrays(elements: ClimbElements, graph: ClimbGraph, links: ClimbLinks) -> dict:
    """The ``climb_*`` NavMesh fields of a climb result (see docs/climbing.md)."""
    return {
        "climb_element_kind": np.asarray(elements.kind, np.int8),
        "climb_element_ends": np.asarray(elements.ends, np.float64).reshape(-1, 2, 3),
        "climb_element_abilities": np.asarray(elements.abilities, np.uint16),
        "climb_element_name": np.asarray(elements.name, dtype=str),
        "climb_node_position": np.asarray(graph.node_position, np.float64).reshape(-1, 3),
        "climb_edge_nodes": np.asarray(graph.edge_nodes, np.int32).reshape(-1, 2),
        "climb_edge_kind": np.asarray(graph.edge_kind, np.int8),
        "climb_edge_element": np.asarray(graph.edge_element, np.int32),
        "climb_edge_length": np.asarray(graph.edge_length, np.float64),
        "climb_edge_abilities": np.asarray(graph.edge_abilities, np.uint16),
        "climb_edge_bidirectional": np.asarray(graph.edge_bidirectional, np.bool_),
        "climb_link_kind": np.asarray(links.kind, np.int8),
        "climb_link_node": np.asarray(links.node, np.int32),
        "climb_link_point": np.asarray(links.point, np.float64).reshape(-1, 3),
        "climb_link_poly": np.asarray(links.poly, np.int32),
        "climb_link_bidirectional": np.asarray(links.bidirectional, np.bool_),
        "climb_link_length": np.asarray(links.length, np.float64),
        "climb_link_abilities": np.asarray(links.abilities, np.uint16),
    }


def link_abilities(kind, element_abilities=None) -> np.ndarray:
    """Abilities each climb-to-navmesh link needs: its kind's (``CLIMB_LINK_BASE_ABILITIES``:
    a mount ``mount``, a hang ``climb``) and the holding abilities of its element
    (``element_abilities``, the element's abilities without ``shimmy``: a ledge ``climb``, a
    ladder ``ladder``, a pipe ``pipe``, or its custom ones). Without ``element_abilities``:
    the abilities of the kinds alone (``CLIMB_LINK_KIND_ABILITIES``, what files written
    before links had their own abilities mean)."""
    kind = np.asarray(kind, np.int64)
    if element_abilities is None:
        return np.array(CLIMB_LINK_KIND_ABILITIES, np.uint16)[kind]
    hold = np.asarray(element_abilities, np.int64) & ~np.int64(ALONG_ONLY_ABILITIES)
    return (np.array(CLIMB_LINK_BASE_ABILITIES, np.int64)[kind] | hold).astype(np.uint16)


def link_ability_masks(nm) -> np.ndarray:
    """(C,) the abilities each climb link of a NavMesh needs (``climb_link_abilities``; a
    NavMesh without them: its links' kinds alone)."""
    return climb_link_ability_masks(nm.climb_link_kind,
                                    getattr(nm, "climb_link_abilities", np.zeros(0)))


def _drop_buried(elements: ClimbElements, grid: TriangleGrid):
    """Elements without the ladders and pipes whose middle is inside the scene's solid
    geometry (e.g. a ladder inside a wall), and a warning naming each."""
    vertical = np.nonzero(elements.kind != CLIMB_LEDGE)[0]
    if vertical.size == 0:
        return elements, []
    mid = elements.ends[vertical].mean(axis=1)
    buried = vertical[inside_solid(mid, grid)]
    if buried.size == 0:
        return elements, []
    warnings = [f"{CLIMB_ELEMENT_KINDS[int(elements.kind[e])]} {str(elements.name[e])!r}: "
                f"its middle lies inside solid geometry (a ladder or pipe inside a wall?); "
                f"skipped" for e in buried.tolist()]
    keep = np.setdiff1d(np.arange(elements.kind.shape[0]), buried)
    return ClimbElements(*(np.asarray(f)[keep] for f in elements)), warnings


def _found_kept(elements: ClimbElements, found) -> list:
    """Rows of ``found`` that do not lie on the line of a ledge of ``elements``."""
    keep = []
    ends = np.asarray(elements.ends).reshape(-1, 2, 3)
    for k in range(found.ends.shape[0]):
        seg = found.ends[k]
        if not any(_overlap_length(ends[e], seg) > MERGE_DISTANCE
                   or _overlap_length(seg, ends[e]) > MERGE_DISTANCE
                   for e in range(ends.shape[0])
                   if int(elements.kind[e]) == CLIMB_LEDGE
                   and abs(ends[e, 0, 2] - seg[0, 2]) <= MERGE_DISTANCE):
            keep.append(k)
    return keep


def add_found_ledges(elements: ClimbElements, found) -> ClimbElements:
    """``elements`` and the found ledges (``ledges.FoundLedges``) that do not lie on the
    line of an element already there (an authored ledge wins, silently)."""
    if found.ends.shape[0] == 0:
        return elements
    keep = _found_kept(elements, found)
    n = len(keep)
    ends = np.asarray(elements.ends).reshape(-1, 2, 3)
    kind = np.full(n, CLIMB_LEDGE, np.int8)
    return ClimbElements(
        np.concatenate([np.asarray(elements.kind, np.int8), kind]),
        np.concatenate([ends, found.ends[keep].reshape(-1, 2, 3)]),
        np.concatenate([np.asarray(elements.abilities, np.uint16),
                        _ELEMENT_ABILITY_TABLE[kind]]),
        np.array([*map(str, elements.name), *(found.name[k] for k in keep)], dtype=str),
        np.concatenate([np.asarray(elements.moves, np.uint8), np.full(n, ALL_MOVES, np.uint8)]),
        np.concatenate([np.asarray(elements.links, np.uint8), np.full(n, ALL_LINKS, np.uint8)]))


def add_climbing(navmesh, items, vertices, triangles, settings,
                 params: ClimbParams | None = None, ledge_mask=None, triangle_object=None,
                 object_names=None):
    """``navmesh`` with its climb graph: ``items`` are ``(name, kind, points)`` of the climb
    objects, ``vertices``/``triangles`` the walkable scene (bounds, collision probe, found
    ledges). Returns (navmesh, warnings); each warning names its object. Elements that
    cannot be used are left out; the navmesh itself is unchanged.

    With ``settings.auto_ledges``, ledges found from the geometry (``core/ledges.py``) are
    added: ``ledge_mask`` (a bool per triangle, False: never part of a found ledge, e.g.
    the triangles of an object whose found ledges are switched off) limits them;
    ``triangle_object`` (an index per triangle into ``object_names``) names each after the
    object of its wall (docs/climbing.md, "Found ledges").
    """
    from .ledges import LedgeCriteria, find_ledges

    params = params or ClimbParams.from_settings(settings)
    v = np.asarray(vertices, np.float64).reshape(-1, 3)
    grid = triangle_grid(v, triangles) if len(triangles) else None
    # the bounds of the walkable geometry's used vertices: those of its triangles
    bounds = None if grid is None else (grid.lo.min(axis=0), grid.hi.max(axis=0))
    elements, warnings = make_elements(items, bounds)
    if grid is not None and elements.kind.shape[0]:
        elements, buried = _drop_buried(elements, grid)
        warnings += buried
    n_found = 0
    fronts = None
    surface = surface_grid(navmesh)  # shared by the ledge finder and the navmesh join
    if getattr(settings, "auto_ledges", False) and grid is not None:
        found = find_ledges(v, triangles, navmesh, LedgeCriteria.from_settings(settings), grid,
                            ledge_mask, triangle_object, object_names, surface)
        before = elements.kind.shape[0]
        kept = _found_kept(elements, found) if found.ends.shape[0] else []
        elements = add_found_ledges(elements, found)
        n_found = elements.kind.shape[0] - before
        fronts = np.zeros((elements.kind.shape[0], 3))
        fronts[before:] = np.asarray(found.front).reshape(-1, 3)[kept]
    graph = build_climb_graph(elements, params, v, triangles, grid, fronts)
    links, more = join_navmesh(navmesh, elements, graph, params,
                               None if grid is None else (v, triangles, grid), surface)
    stats = dict(navmesh.stats)
    stats.update(climb_elements=int(elements.kind.shape[0]),
                 climb_found_ledges=int(n_found),
                 climb_nodes=int(graph.node_position.shape[0]),
                 climb_edges=int(graph.edge_kind.shape[0]),
                 climb_links=int(links.kind.shape[0]))
    out = dataclasses.replace(navmesh, stats=stats, **climb_arrays(elements, graph, links))
    return out, warnings + more


# ------------------------------------------------------------------------ transits
class ClimbTransits(NamedTuple):
    """Ways through the climb graph from a navmesh entry to a navmesh exit, one row each:
    what an engine that knows only point links (Detour's off-mesh connections) sees of
    climbing (Fuse's "clue" pair standing in for a whole climb)."""

    entry_link: np.ndarray  # (T,) int32 climb link getting on (ground -> node)
    exit_link: np.ndarray  # (T,) int32 climb link getting off (node -> ground)
    start: np.ndarray  # (T, 3) float64 ground point of the entry
    end: np.ndarray  # (T, 3) float64 ground point of the exit
    cost: np.ndarray  # (T,) float64 entry link + climb edges + exit link lengths


@njit(cache=True)
def _transit_search(n_nodes, edge_nodes, edge_length, edge_bidir, link_node, link_bidir,
                    link_length, link_poly):
    """For each entry link: the cheapest way over climb edges to every exit link whose
    ground polygon differs from the entry's; per (entry, exit polygon) the cheapest exit.
    Rows (entry, exit, cost)."""
    n_e = edge_nodes.shape[0]
    deg = np.zeros(n_nodes + 1, np.int64)
    for k in range(n_e):
        deg[edge_nodes[k, 0] + 1] += 1
        if edge_bidir[k]:
            deg[edge_nodes[k, 1] + 1] += 1
    start = np.cumsum(deg)
    fill = start[:-1].copy()
    to = np.zeros(start[-1], np.int64)
    ln = np.zeros(start[-1])
    for k in range(n_e):
        a, b = edge_nodes[k, 0], edge_nodes[k, 1]
        to[fill[a]] = b
        ln[fill[a]] = edge_length[k]
        fill[a] += 1
        if edge_bidir[k]:
            to[fill[b]] = a
            ln[fill[b]] = edge_length[k]
            fill[b] += 1
    # links by node
    n_l = link_node.shape[0]
    lcount = np.zeros(n_nodes + 1, np.int64)
    for c in range(n_l):
        lcount[link_node[c] + 1] += 1
    lstart = np.cumsum(lcount)
    lfill = lstart[:-1].copy()
    lof = np.zeros(n_l, np.int64)
    for c in range(n_l):
        lof[lfill[link_node[c]]] = c
        lfill[link_node[c]] += 1
    dist = np.full(n_nodes, np.inf)
    stamp = np.full(n_nodes, -1, np.int64)
    n_poly = 0
    for c in range(n_l):
        n_poly = max(n_poly, link_poly[c] + 1)
    poly_exit = np.full(n_poly, -1, np.int64)  # this round's best exit per polygon ...
    poly_cost = np.full(n_poly, np.inf)  # ... and its cost
    poly_stamp = np.full(n_poly, -1, np.int64)
    touched = np.zeros(n_poly, np.int64)
    hk = np.zeros(start[-1] + 16)
    hv = np.zeros(start[-1] + 16, np.int64)
    out = np.zeros((16, 3))
    n_out = 0
    for a in range(n_l):
        if not link_bidir[a]:
            continue  # a drop: no way on
        src = link_node[a]
        stamp[src] = a
        dist[src] = 0.0
        hs = heap_push(hk, hv, 0, 0.0, src)
        n_touched = 0
        while hs > 0:
            d, n, hs = heap_pop(hk, hv, hs)
            if d > dist[n]:
                continue
            for w in range(lstart[n], lstart[n + 1]):
                b = lof[w]
                if b == a or link_poly[b] == link_poly[a]:
                    continue
                c = link_length[a] + d + link_length[b]
                p = link_poly[b]
                if poly_stamp[p] != a:
                    poly_stamp[p] = a
                    touched[n_touched] = p
                    n_touched += 1
                    poly_exit[p] = b
                    poly_cost[p] = c
                elif c < poly_cost[p]:
                    poly_exit[p] = b
                    poly_cost[p] = c
            for k in range(start[n], start[n + 1]):
                m = to[k]
                nd = d + ln[k]
                if stamp[m] != a or nd < dist[m]:
                    stamp[m] = a
                    dist[m] = nd
                    hs = heap_push(hk, hv, hs, nd, m)
        for p in np.sort(touched[:n_touched]):
            b = poly_exit[p]
            if n_out == out.shape[0]:
                bigger = np.zeros((n_out * 2, 3))
                bigger[:n_out] = out[:n_out]
                out = bigger
            out[n_out, 0] = a
            out[n_out, 1] = b
            out[n_out, 2] = poly_cost[p]
            n_out += 1
    return out[:n_out]


def climb_transits(nm) -> ClimbTransits:
    """The ways through the climb graph of a NavMesh, entry to exit (any abilities, no
    penalties): per entry link (ground -> climb node) and per navmesh polygon reached,
    the cheapest exit link there. Deterministic (entries in link order, exits by
    polygon)."""
    n_l = int(nm.climb_link_kind.shape[0])
    if n_l == 0:
        z = np.zeros(0, np.int32)
        return ClimbTransits(z, z, np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0))
    rows = _transit_search(
        int(nm.climb_node_position.shape[0]),
        np.asarray(nm.climb_edge_nodes, np.int64).reshape(-1, 2),
        np.asarray(nm.climb_edge_length, np.float64),
        np.asarray(nm.climb_edge_bidirectional, np.bool_),
        np.asarray(nm.climb_link_node, np.int64), np.asarray(nm.climb_link_bidirectional,
                                                             np.bool_),
        np.asarray(nm.climb_link_length, np.float64), np.asarray(nm.climb_link_poly, np.int64))
    a = rows[:, 0].astype(np.int32)
    b = rows[:, 1].astype(np.int32)
    pts = np.asarray(nm.climb_link_point, np.float64).reshape(-1, 3)
    return ClimbTransits(a, b, pts[a], pts[b], rows[:, 2].copy())
