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
   probe against the scene's triangles.
3. **Joined to the navmesh** (:func:`join_navmesh`, :class:`ClimbLinks`): mount, ladder-foot
   and hang links between climb nodes and walkable ground.

:func:`add_climbing` does all three and stores the result on a NavMesh (``climb_*`` arrays).
Everything is deterministic: the same input gives bit-identical arrays.
"""

from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .kinds import (
    ABILITY_BACK_JUMP,
    ABILITY_CLIMB,
    ABILITY_LADDER,
    ABILITY_MOUNT,
    ABILITY_PIPE,
    ABILITY_SHIMMY,
    CLIMB_EDGE_ALONG,
    CLIMB_EDGE_BACK_JUMP,
    CLIMB_EDGE_DROP,
    CLIMB_EDGE_JUMP,
    CLIMB_ELEMENT_KINDS,
    CLIMB_LADDER,
    CLIMB_LEDGE,
    CLIMB_LINK_HANG,
    CLIMB_LINK_LADDER_FOOT,
    CLIMB_LINK_MOUNT,
    CLIMB_PIPE,
    CLIMB_SUFFIXES,  # noqa: F401  (re-exported)
)

# Abilities an element needs to be used at all, and that its "along" edges need.
ELEMENT_ABILITIES = {
    CLIMB_LEDGE: ABILITY_CLIMB | ABILITY_SHIMMY,
    CLIMB_LADDER: ABILITY_LADDER,
    CLIMB_PIPE: ABILITY_PIPE,
}

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
# Horizontal reach from a climb node to walkable ground, beyond the agent radius (metres).
GROUND_REACH = 0.5
# An element farther than this from the scene's bounds is refused (metres).
OUTSIDE_SCENE_MARGIN = 100.0


class ClimbElements(NamedTuple):
    """Climb elements as parallel arrays, one row per element."""

    kind: np.ndarray  # (E,) int8, index into CLIMB_ELEMENT_KINDS
    ends: np.ndarray  # (E, 2, 3) float64: p0, p1 (ledges: any order; vertical: bottom, top)
    abilities: np.ndarray  # (E,) uint16 bit mask of CLIMB_ABILITIES the element needs
    name: np.ndarray  # (E,) str: the source object's name


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

    @classmethod
    def from_settings(cls, settings) -> ClimbParams:
        return cls(max_link_distance=float(settings.max_jump_distance),
                   max_drop_height=float(settings.max_drop_height),
                   max_climb_height=float(settings.max_climb_height),
                   step_height=float(settings.agent_max_climb),
                   reach=float(settings.agent_radius) + GROUND_REACH)


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


def empty_elements() -> ClimbElements:
    return ClimbElements(np.zeros(0, np.int8), np.zeros((0, 2, 3)), np.zeros(0, np.uint16),
                         np.zeros(0, dtype=str))


# ------------------------------------------------------------------------ elements
def element_from_points(name: str, kind: int, points) -> tuple[np.ndarray | None, str | None]:
    """The (2, 3) segment of a climb element made from an object's points, or
    ``(None, message)`` naming the object when it cannot be one.

    A ledge is the top line of its points: the points within ``LEDGE_TOP_TOLERANCE`` of the
    highest, as a line through their mean along their longest horizontal spread (principal
    axis), from the first to the last of them on it, at the highest height. A ladder or
    pipe is the vertical axis of the points' bounds: from the centre of the bottom to the
    centre of the top.
    """
    what = CLIMB_ELEMENT_KINDS[kind]
    pts = np.asarray(points, np.float64).reshape(-1, 3)
    if pts.shape[0] == 0:
        return None, f"{what} {name!r}: the object has no points; skipped"
    if not np.isfinite(pts).all():
        return None, f"{what} {name!r}: a point has a NaN or infinite coordinate; skipped"
    if kind == CLIMB_LEDGE:
        top = pts[:, 2].max()
        line = pts[pts[:, 2] >= top - LEDGE_TOP_TOLERANCE][:, :2]
        centred = line - line.mean(axis=0)
        # principal horizontal direction (deterministic sign: +x, then +y)
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        axis = vt[0]
        if axis[0] < 0 or (axis[0] == 0 and axis[1] < 0):
            axis = -axis
        proj = centred @ axis
        mid = line.mean(axis=0)
        a, b = mid + proj.min() * axis, mid + proj.max() * axis
        seg = np.array([[a[0], a[1], top], [b[0], b[1], top]])
    else:
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        c = 0.5 * (lo + hi)
        seg = np.array([[c[0], c[1], lo[2]], [c[0], c[1], hi[2]]])
    length = float(np.linalg.norm(seg[1] - seg[0]))
    if not length >= MIN_ELEMENT_LENGTH:
        return None, (f"{what} {name!r}: {length:.3g} m long, shorter than the "
                      f"{MIN_ELEMENT_LENGTH:g} m a climb element needs; skipped")
    return seg, None


def make_elements(items, scene_bounds=None) -> tuple[ClimbElements, list[str]]:
    """Elements from ``(name, kind, points)`` items; returns (elements, warnings).

    Refused with a warning naming the object (the rest are kept): an element that is too
    short, one farther than ``OUTSIDE_SCENE_MARGIN`` from ``scene_bounds`` ((2, 3) min/max
    of the walkable geometry), and one that overlaps an earlier element along its length.
    """
    warnings: list[str] = []
    kinds, segs, names = [], [], []
    for name, kind, points in items:
        seg, msg = element_from_points(name, kind, points)
        if seg is None:
            warnings.append(msg or f"{name}: not a usable climb element")
            continue
        if scene_bounds is not None:
            lo = np.asarray(scene_bounds[0], np.float64) - OUTSIDE_SCENE_MARGIN
            hi = np.asarray(scene_bounds[1], np.float64) + OUTSIDE_SCENE_MARGIN
            if (seg.min(axis=0) < lo).any() or (seg.max(axis=0) > hi).any():
                far = float(np.linalg.norm(seg.mean(axis=0)))
                warnings.append(
                    f"{CLIMB_ELEMENT_KINDS[kind]} {name!r}: at {far:.0f} m from the origin it "
                    f"lies more than {OUTSIDE_SCENE_MARGIN:g} m outside the walkable geometry; "
                    f"skipped")
                continue
        kinds.append(kind)
        segs.append(seg)
        names.append(str(name))
    if not segs:
        return empty_elements(), warnings
    # overlaps: an element on one line with an earlier kept one over more than the merge
    # distance is skipped (candidate pairs from a kernel, decided in order here)
    pairs = _near_pairs(np.array(segs, np.float64), MERGE_DISTANCE, MERGE_DISTANCE)
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
    keep = [k for k in range(len(segs)) if k not in dropped]
    kinds = [kinds[k] for k in keep]
    segs = [segs[k] for k in keep]
    names = [names[k] for k in keep]
    kind_arr = np.array(kinds, np.int8)
    abilities = np.array([ELEMENT_ABILITIES[k] for k in kinds], np.uint16)
    return ClimbElements(kind_arr, np.array(segs, np.float64), abilities,
                         np.array(names, dtype=str)), warnings


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
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def _cross(a, b):
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


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
    """Element pairs (i < j) whose bounding boxes are within gap_xy across and gap_z in
    height of each other."""
    n = ends.shape[0]
    out = np.zeros((n * 4 + 16, 2), np.int64)
    lo = np.empty((n, 3))
    hi = np.empty((n, 3))
    for i in range(n):
        for a in range(3):
            lo[i, a] = min(ends[i, 0, a], ends[i, 1, a])
            hi[i, a] = max(ends[i, 0, a], ends[i, 1, a])
    k = 0
    for i in range(n):
        for j in range(i + 1, n):
            far = False
            for a in range(3):
                gap = gap_z if a == 2 else gap_xy
                if lo[i, a] > hi[j, a] + gap or lo[j, a] > hi[i, a] + gap:
                    far = True
                    break
            if far:
                continue
            if k == out.shape[0]:
                grown = np.zeros((out.shape[0] * 2, 2), np.int64)
                grown[:k] = out
                out = grown
            out[k, 0] = i
            out[k, 1] = j
            k += 1
    return out[:k]


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


@njit(cache=True)
def _segment_hits(a, b, tris, tri_lo, tri_hi):
    """True for each probe segment a[k]-b[k] that crosses a triangle (Moller-Trumbore)."""
    n = a.shape[0]
    hit = np.zeros(n, np.bool_)
    for k in range(n):
        lo = np.minimum(a[k], b[k])
        hi = np.maximum(a[k], b[k])
        d = b[k] - a[k]
        for t in range(tris.shape[0]):
            if tri_lo[t, 0] > hi[0] or tri_lo[t, 1] > hi[1] or tri_lo[t, 2] > hi[2] \
                    or tri_hi[t, 0] < lo[0] or tri_hi[t, 1] < lo[1] or tri_hi[t, 2] < lo[2]:
                continue
            v0 = tris[t, 0]
            e1 = tris[t, 1] - v0
            e2 = tris[t, 2] - v0
            pv = _cross(d, e2)
            det = _dot(e1, pv)
            if abs(det) < 1e-12:
                continue
            inv = 1.0 / det
            tv = a[k] - v0
            u = _dot(tv, pv) * inv
            if u < 0.0 or u > 1.0:
                continue
            qv = _cross(tv, e1)
            v = _dot(d, qv) * inv
            if v < 0.0 or u + v > 1.0:
                continue
            w = _dot(e2, qv) * inv
            if 0.0 <= w <= 1.0:
                hit[k] = True
                break
    return hit


def probe_blocked(a, b, vertices, triangles) -> np.ndarray:
    """Whether the collision probe of each link a[k] -> b[k] (hand points) hits a triangle.

    The probe is the segment between the hand points raised by ``PROBE_LIFT`` and trimmed
    by ``PROBE_TRIM`` at both ends (so the wall under a ledge and the element itself do not
    block it).
    """
    a = np.asarray(a, np.float64).reshape(-1, 3)
    b = np.asarray(b, np.float64).reshape(-1, 3)
    if a.shape[0] == 0 or len(triangles) == 0:
        return np.zeros(a.shape[0], np.bool_)
    d = b - a
    length = np.linalg.norm(d, axis=1)
    trim = np.minimum(PROBE_TRIM, 0.25 * length)[:, None] * d / np.maximum(length, 1e-12)[:, None]
    lift = np.array([0.0, 0.0, PROBE_LIFT])
    tris = np.asarray(vertices, np.float64)[np.asarray(triangles, np.int64)]
    return _segment_hits(a + trim + lift, b - trim + lift, tris, tris.min(axis=1),
                         tris.max(axis=1))


# ------------------------------------------------------------------------ graph
def node_count(length: float, spacing: float = NODE_SPACING) -> int:
    """Nodes of a lone element ``length`` metres long: max(3, ceil(length / spacing) + 1)."""
    return max(3, int(math.ceil(length / spacing - 1e-9)) + 1)


def build_climb_graph(elements: ClimbElements, params: ClimbParams | None = None,
                      vertices=None, triangles=None) -> ClimbGraph:
    """The climb graph of ``elements`` (see the module doc and docs/climbing.md).

    With ``vertices``/``triangles`` given, implicit links whose collision probe hits a
    triangle are left out.
    """
    params = params or ClimbParams()
    ends = np.ascontiguousarray(elements.ends, np.float64).reshape(-1, 2, 3)
    n_el = ends.shape[0]
    lengths = np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1)
    contacts = _contacts(ends, float(params.merge_distance)) if n_el > 1 \
        else np.zeros((0, 4))

    # 1. per element: regular parameters, with contact parameters replacing any regular
    #    one closer than the merge distance
    params_of: list[list[float]] = []
    contact_params: list[set[float]] = [set() for _ in range(n_el)]
    for c in contacts:
        contact_params[int(c[0])].add(float(c[2]))
        contact_params[int(c[1])].add(float(c[3]))
    for e in range(n_el):
        cnt = node_count(float(lengths[e]), params.spacing)
        regular = np.linspace(0.0, 1.0, cnt).tolist()
        mine = sorted(contact_params[e])
        tol = params.merge_distance / max(float(lengths[e]), 1e-12)
        # contacts closer together than the merge distance become one parameter
        contact: list[float] = []
        for t in mine:
            if not contact or t - contact[-1] > tol:
                contact.append(t)
        if contact:
            c_arr = np.array(contact)
            kept = [t for t in regular if np.abs(c_arr - t).min() > tol]
            params_of.append(sorted(kept + contact))
        else:
            params_of.append(regular)

    # 2. raw nodes, then union of touching nodes
    base = np.zeros(n_el + 1, np.int64)
    np.cumsum([len(p) for p in params_of], out=base[1:])
    raw_pos = np.zeros((int(base[-1]), 3))
    for e in range(n_el):
        t = np.array(params_of[e])
        raw_pos[base[e]:base[e + 1]] = ends[e, 0] + t[:, None] * (ends[e, 1] - ends[e, 0])
    parent = np.arange(raw_pos.shape[0])

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def nearest(e, t):
        return int(base[e] + int(np.argmin(np.abs(np.array(params_of[e]) - t))))

    for c in contacts:
        a, b = find(nearest(int(c[0]), c[2])), find(nearest(int(c[1]), c[3]))
        if a != b:
            parent[max(a, b)] = min(a, b)
    roots = np.array([find(i) for i in range(raw_pos.shape[0])], np.int64)
    uniq, node_of = np.unique(roots, return_inverse=True)
    pos = np.zeros((uniq.shape[0], 3))
    np.add.at(pos, node_of, raw_pos)
    pos /= np.bincount(node_of, minlength=uniq.shape[0])[:, None]

    element_nodes = [node_of[base[e]:base[e + 1]].astype(np.int32) for e in range(n_el)]
    edges: list[tuple[int, int, int, int, int, bool]] = []  # a, b, kind, element, abil, bidir
    seen: set[tuple[int, int]] = set()
    for e in range(n_el):
        nodes = element_nodes[e]
        for k in range(len(nodes) - 1):
            a, b = int(nodes[k]), int(nodes[k + 1])
            if a == b or (min(a, b), max(a, b)) in seen:
                continue
            seen.add((min(a, b), max(a, b)))
            edges.append((a, b, CLIMB_EDGE_ALONG, e, int(elements.abilities[e]), True))

    # 3. implicit links between test nodes (ends and centre) of different elements:
    #    end-end and centre-centre pairs, as in Fuse
    implicit = _implicit_candidates(elements, element_nodes, pos, params, seen)
    if implicit and vertices is not None and triangles is not None:
        a = pos[[c[0] for c in implicit]]
        b = pos[[c[1] for c in implicit]]
        blocked = probe_blocked(a, b, vertices, triangles)
        implicit = [c for c, blk in zip(implicit, blocked, strict=True) if not blk]
    edges.extend(implicit)

    if edges:
        arr = np.array([e[:5] for e in edges], np.int64)
        bidir = np.array([e[5] for e in edges], np.bool_)
        en = arr[:, :2].astype(np.int32)
        length = np.linalg.norm(pos[en[:, 1]] - pos[en[:, 0]], axis=1)
        return ClimbGraph(pos, en, arr[:, 2].astype(np.int8), arr[:, 3].astype(np.int32),
                          length, arr[:, 4].astype(np.uint16), bidir, element_nodes)
    return ClimbGraph(pos, np.zeros((0, 2), np.int32), np.zeros(0, np.int8),
                      np.zeros(0, np.int32), np.zeros(0), np.zeros(0, np.uint16),
                      np.zeros(0, np.bool_), element_nodes)


def _test_nodes(nodes) -> tuple[list[int], int]:
    """An element's end nodes and its centre node."""
    return [int(nodes[0]), int(nodes[-1])], int(nodes[len(nodes) // 2])


def _implicit_candidates(elements, element_nodes, pos, params, seen):
    out: list[tuple] = []
    n_el = len(element_nodes)
    if n_el < 2:
        return out
    max_up = math.radians(params.max_link_angle)
    node_sets = [set(n.tolist()) for n in element_nodes]
    pos_l = pos.tolist()
    reach = float(params.max_link_distance)
    pairs = _near_pairs(np.ascontiguousarray(elements.ends, np.float64), reach,
                        max(reach, float(params.max_drop_height)))
    by_first: dict[int, list[int]] = {}
    for i, j in pairs.tolist():
        by_first.setdefault(i, []).append(j)
    par_cos = math.cos(math.radians(BACK_JUMP_PARALLEL_DEG))
    axes = elements.ends[:, 1] - elements.ends[:, 0]
    axes = axes / np.maximum(np.linalg.norm(axes, axis=1), 1e-12)[:, None]
    axes_l = axes.tolist()
    for i in sorted(by_first):
        ends_i, mid_i = _test_nodes(element_nodes[i])
        for j in by_first[i]:
            ends_j, mid_j = _test_nodes(element_nodes[j])
            if node_sets[i] & node_sets[j]:
                continue  # touching elements: joined by a shared node already
            both_ledges = (elements.kind[i] == CLIMB_LEDGE and elements.kind[j] == CLIMB_LEDGE)
            parallel = abs(float(axes[i] @ axes[j])) >= par_cos
            pairs = [(a, b) for a in ends_i for b in ends_j] + [(mid_i, mid_j)]
            for a, b in pairs:
                key = (min(a, b), max(a, b))
                if a == b or key in seen:
                    continue
                d = [pos_l[b][k] - pos_l[a][k] for k in range(3)]
                horiz = math.hypot(d[0], d[1])
                dist = math.hypot(horiz, d[2])
                if dist <= params.merge_distance:
                    continue
                low, high = (a, b) if d[2] >= 0 else (b, a)
                rise = abs(d[2])
                up_angle = math.atan2(rise, horiz)
                abil = ABILITY_CLIMB
                if dist <= params.max_link_distance and up_angle <= max_up + 1e-12:
                    kind = CLIMB_EDGE_JUMP
                    if both_ledges and parallel and horiz > params.merge_distance:
                        ax = axes_l[i]
                        along = abs(d[0] * ax[0] + d[1] * ax[1]) / horiz \
                            if math.hypot(ax[0], ax[1]) > 0 else 1.0
                        if along < 0.5:
                            kind = CLIMB_EDGE_BACK_JUMP
                            abil |= ABILITY_BACK_JUMP
                    seen.add(key)
                    out.append((low, high, kind, -1, abil, True))
                elif horiz <= params.max_link_distance and rise <= params.max_drop_height \
                        and rise > 0:
                    seen.add(key)
                    out.append((high, low, CLIMB_EDGE_DROP, -1, abil, False))
    return out


# ------------------------------------------------------------------------ navmesh join
@njit(cache=True)
def _closest_on_triangle_xy(px, py, tri):
    """Closest point (x, y, z on the triangle's plane) of triangle ``tri`` to (px, py) in XY."""
    best_d = np.inf
    bx, by, bz = 0.0, 0.0, 0.0
    ax, ay = tri[0, 0], tri[0, 1]
    e1x, e1y = tri[1, 0] - ax, tri[1, 1] - ay
    e2x, e2y = tri[2, 0] - ax, tri[2, 1] - ay
    det = e1x * e2y - e1y * e2x
    if abs(det) > 1e-14:
        u = ((px - ax) * e2y - (py - ay) * e2x) / det
        v = (e1x * (py - ay) - e1y * (px - ax)) / det
        if u >= 0.0 and v >= 0.0 and u + v <= 1.0:
            z = tri[0, 2] + u * (tri[1, 2] - tri[0, 2]) + v * (tri[2, 2] - tri[0, 2])
            return px, py, z, 0.0
    for k in range(3):
        p = tri[k]
        q = tri[(k + 1) % 3]
        dx, dy = q[0] - p[0], q[1] - p[1]
        ll = dx * dx + dy * dy
        t = 0.0
        if ll > 0.0:
            t = min(max(((px - p[0]) * dx + (py - p[1]) * dy) / ll, 0.0), 1.0)
        cx, cy = p[0] + t * dx, p[1] + t * dy
        dd = (cx - px) ** 2 + (cy - py) ** 2
        if dd < best_d:
            best_d = dd
            bx, by, bz = cx, cy, p[2] + t * (q[2] - p[2])
    return bx, by, bz, np.sqrt(best_d)


@njit(cache=True)
def _tri_grid(tri_lo, tri_hi, x0, y0, cell, nx, ny):
    """CSR lists of the triangles whose XY bounds touch each grid cell."""
    n = tri_lo.shape[0]
    counts = np.zeros(nx * ny + 1, np.int64)
    for pass_ in range(2):
        fill = counts.copy() if pass_ == 1 else counts
        if pass_ == 1:
            items = np.zeros(counts[-1], np.int64)
        for t in range(n):
            i0 = max(int((tri_lo[t, 0] - x0) / cell), 0)
            i1 = min(int((tri_hi[t, 0] - x0) / cell), nx - 1)
            j0 = max(int((tri_lo[t, 1] - y0) / cell), 0)
            j1 = min(int((tri_hi[t, 1] - y0) / cell), ny - 1)
            for i in range(i0, i1 + 1):
                for j in range(j0, j1 + 1):
                    c = j * nx + i
                    if pass_ == 0:
                        counts[c + 1] += 1
                    else:
                        items[fill[c]] = t
                        fill[c] += 1
        if pass_ == 0:
            for c in range(nx * ny):
                counts[c + 1] += counts[c]
    return counts, items


@njit(cache=True)
def _nearest_ground(nodes, zlo, zhi, reach, tris, start, items, x0, y0, cell, nx, ny):
    """For each node, the nearest (in XY) surface point within ``reach`` whose height lies in
    [zlo, zhi]: (triangle index or -1, point). Ties go to the lowest triangle index."""
    n = nodes.shape[0]
    best_t = np.full(n, -1, np.int64)
    best_p = np.zeros((n, 3))
    for k in range(n):
        px, py = nodes[k, 0], nodes[k, 1]
        best = reach
        i0 = max(int((px - reach - x0) / cell), 0)
        i1 = min(int((px + reach - x0) / cell), nx - 1)
        j0 = max(int((py - reach - y0) / cell), 0)
        j1 = min(int((py + reach - y0) / cell), ny - 1)
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                c = j * nx + i
                for m in range(start[c], start[c + 1]):
                    t = items[m]
                    tri = tris[t]
                    if tri[:, 2].min() > zhi[k] or tri[:, 2].max() < zlo[k]:
                        continue
                    x, y, z, d = _closest_on_triangle_xy(px, py, tri)
                    if d <= best and zlo[k] <= z <= zhi[k]:
                        if d < best or best_t[k] < 0 or t < best_t[k]:
                            best = d
                            best_t[k] = t
                            best_p[k, 0] = x
                            best_p[k, 1] = y
                            best_p[k, 2] = z
    return best_t, best_p


def _ground_points(tris, nodes, zlo, zhi, reach):
    """:func:`_nearest_ground` over a uniform XY grid of the triangles."""
    if tris.shape[0] == 0 or nodes.shape[0] == 0:
        return np.full(nodes.shape[0], -1, np.int64), np.zeros((nodes.shape[0], 3))
    lo, hi = tris.min(axis=1), tris.max(axis=1)
    x0, y0 = float(lo[:, 0].min()), float(lo[:, 1].min())
    span = max(float(hi[:, 0].max()) - x0, float(hi[:, 1].max()) - y0, 1e-9)
    # cells of at least the reach, at most ~4 triangles' worth per cell on average
    cell = max(2.0 * reach, span / max(1.0, math.sqrt(tris.shape[0] / 4.0)), 1e-3)
    nx = int((float(hi[:, 0].max()) - x0) / cell) + 1
    ny = int((float(hi[:, 1].max()) - y0) / cell) + 1
    start, items = _tri_grid(lo, hi, x0, y0, cell, nx, ny)
    return _nearest_ground(np.ascontiguousarray(nodes), zlo, zhi, float(reach), tris, start,
                           items, x0, y0, cell, nx, ny)


def join_navmesh(navmesh, elements: ClimbElements, graph: ClimbGraph,
                 params: ClimbParams | None = None) -> tuple[ClimbLinks, list[str]]:
    """Links between climb nodes and walkable ground, and a warning per element with none.

    * ``mount`` (both ways): ground level with a ledge node (within ``step_height``) and
      within ``reach``; also the top node of a ladder or pipe.
    * ``ladder_foot`` (both ways): ground level with the bottom node of a ladder or pipe.
    * ``hang``: ground below a ledge node (deeper than ``step_height``) within ``reach``;
      both ways when at most ``max_climb_height`` below (jump up to hang, or let go),
      one way (a drop) when at most ``max_drop_height`` below.
    """
    params = params or ClimbParams()
    start, tris = navmesh.surface_triangles()
    tri_poly = np.repeat(np.arange(navmesh.polygon_count, dtype=np.int32), np.diff(start))
    rows: list[tuple] = []  # kind, node, point, poly, bidir
    warnings: list[str] = []
    pos = graph.node_position
    q_el, q_node, q_kind = [], [], []
    for e in range(elements.kind.shape[0]):
        nodes = graph.element_nodes[e].tolist()
        if int(elements.kind[e]) == CLIMB_LEDGE:
            pairs = [(n, CLIMB_LINK_MOUNT) for n in nodes] + [(n, CLIMB_LINK_HANG)
                                                               for n in nodes]
        else:
            pairs = [(nodes[0], CLIMB_LINK_LADDER_FOOT), (nodes[-1], CLIMB_LINK_MOUNT)]
        q_el += [e] * len(pairs)
        q_node += [n for n, _ in pairs]
        q_kind += [k for _, k in pairs]
    qn = np.array(q_node, np.int64)
    qk = np.array(q_kind, np.int64)
    z = pos[qn, 2] if qn.size else np.zeros(0)
    hang = qk == CLIMB_LINK_HANG
    zlo = np.where(hang, z - params.max_drop_height, z - params.step_height)
    zhi = np.where(hang, z - params.step_height - 1e-6, z + params.step_height)
    found_t, found_p = _ground_points(np.ascontiguousarray(tris), pos[qn].reshape(-1, 3),
                                      zlo, zhi, float(params.reach))
    linked = np.zeros(elements.kind.shape[0], np.bool_)
    for k in range(qn.shape[0]):
        if found_t[k] < 0:
            continue
        bidir = True
        if qk[k] == CLIMB_LINK_HANG:
            bidir = bool(z[k] - found_p[k, 2] <= params.max_climb_height)
        rows.append((int(qk[k]), int(qn[k]), found_p[k].copy(),
                     int(tri_poly[found_t[k]]), bidir))
        linked[q_el[k]] = True
    for e in np.nonzero(~linked)[0].tolist():
        warnings.append(f"{CLIMB_ELEMENT_KINDS[int(elements.kind[e])]} "
                        f"{str(elements.name[e])!r}: no walkable ground within "
                        f"{params.reach:g} m across and {params.max_drop_height:g} m down; it "
                        f"has no entry or exit")
    if not rows:
        return ClimbLinks(np.zeros(0, np.int8), np.zeros(0, np.int32), np.zeros((0, 3)),
                          np.zeros(0, np.int32), np.zeros(0, np.bool_), np.zeros(0)), warnings
    node = np.array([r[1] for r in rows], np.int32)
    point = np.array([r[2] for r in rows], np.float64)
    return ClimbLinks(np.array([r[0] for r in rows], np.int8), node, point,
                      np.array([r[3] for r in rows], np.int32),
                      np.array([r[4] for r in rows], np.bool_),
                      np.linalg.norm(point - pos[node], axis=1)), warnings


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
    }


def link_abilities(kind) -> np.ndarray:
    """Abilities each climb-to-navmesh link kind needs."""
    table = np.array([ABILITY_MOUNT, ABILITY_LADDER, ABILITY_CLIMB], np.uint16)
    return table[np.asarray(kind, np.int64)]


def add_climbing(navmesh, items, vertices, triangles, settings,
                 params: ClimbParams | None = None):
    """``navmesh`` with its climb graph: ``items`` are ``(name, kind, points)`` of the climb
    objects, ``vertices``/``triangles`` the walkable scene (bounds and collision probe).
    Returns (navmesh, warnings); each warning names its object. Elements that cannot be
    used are left out; the navmesh itself is unchanged.
    """
    params = params or ClimbParams.from_settings(settings)
    v = np.asarray(vertices, np.float64).reshape(-1, 3)
    used = v[np.unique(np.asarray(triangles, np.int64))] if len(triangles) else v[:0]
    bounds = (used.min(axis=0), used.max(axis=0)) if used.shape[0] else None
    elements, warnings = make_elements(items, bounds)
    graph = build_climb_graph(elements, params, v, triangles)
    links, more = join_navmesh(navmesh, elements, graph, params)
    stats = dict(navmesh.stats)
    stats.update(climb_elements=int(elements.kind.shape[0]),
                 climb_nodes=int(graph.node_position.shape[0]),
                 climb_edges=int(graph.edge_kind.shape[0]),
                 climb_links=int(links.kind.shape[0]))
    out = dataclasses.replace(navmesh, stats=stats, **climb_arrays(elements, graph, links))
    return out, warnings + more
