"""Ledges found from the geometry: top edges of walls an agent can jump up to and hang from.

numpy + numba only (docs/climbing.md, "Found ledges"). A **found ledge** is a piece of a
mesh edge where

1. a *walkable* triangle (slope within ``agent_max_slope``) meets a *wall* triangle
   (steeper than ``WALL_MIN_SLOPE_DEG``) that goes down from the edge, and the edge is
   level (rises at most ``EDGE_MAX_SLOPE_DEG``): the wall's top edge, the wall's *front*
   being the side away from the walkable triangle;
2. in front of the wall, within the reach (``agent_radius + GROUND_REACH`` across), the
   highest navmesh surface lies *more than* ``max_jump_height`` and *at most*
   ``max_climb_height`` below the edge (a lower wall is a jump up, a higher one cannot be
   reached from the ground);
3. behind the edge the navmesh is within reach and level with the edge (within
   ``agent_max_climb``): the top is walkable, the ledge can be mounted;
4. a hanging agent has room: probe segments in front of the wall (two vertical lines at
   one and two agent radii from the wall face, from the edge down by ``agent_height`` or
   to the ground, and horizontal ones from the wall face out to two radii, every
   ``PROBE_STEP`` down that height) cross no scene triangle.

Each candidate edge is tested at points ``SAMPLE_SPACING`` apart; runs of passing points
become pieces, and pieces on one line that touch end to end are joined. Pieces shorter than
``MIN_FOUND_LEDGE`` are dropped.

Per object: ``allowed`` (a bool per scene triangle; False for the triangles of an object
whose found ledges are switched off) -- an edge yields a ledge only when both its walkable
and its wall triangle are allowed. ``triangle_object`` + ``object_names`` name each found
ledge after the object of its wall triangle.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .climb_geom import (
    GROUND_REACH,
    TriangleGrid,
    _closest_on_triangle_xy,
    _segment_hits,
    surface_grid,
)
from .query.spatial import _cell_range

# A wall triangle is steeper than this (degrees from the horizontal).
WALL_MIN_SLOPE_DEG = 75.0
# A wall's top edge rises at most this much (degrees) along its length.
EDGE_MAX_SLOPE_DEG = 5.0
# Spacing (metres) of the points each candidate edge is tested at.
SAMPLE_SPACING = 0.2
# Shortest found ledge kept (metres).
MIN_FOUND_LEDGE = 0.5
# Vertices closer than this (metres) are one vertex when edges are matched.
WELD = 1e-3
# The hanging probes start this far (metres) in front of the wall face.
PROBE_GAP = 0.05
# Vertical spacing (metres) of the horizontal hanging probes.
PROBE_STEP = 0.3
# Smallest body radius (metres) the hanging probes assume.
MIN_BODY_RADIUS = 0.15
# Name prefix of found ledges (the elements' ``name``).
FOUND_LEDGE_PREFIX = "auto-ledge"


class LedgeCriteria(NamedTuple):
    """Thresholds of the finder (metres, from BakeSettings: :meth:`from_settings`)."""

    max_slope_deg: float = 45.0  # walkable top
    jump_height: float = 1.0  # walls at most this high are jumped up (no ledge)
    climb_height: float = 3.0  # walls higher than this are out of reach
    step_height: float = 0.9  # top navmesh within this height of the edge
    reach: float = 1.1  # horizontal reach from the edge to navmesh (front and top)
    body_radius: float = 0.6  # hanging agent's radius
    body_height: float = 2.0  # hanging agent's height below the hands

    @classmethod
    def from_settings(cls, s) -> LedgeCriteria:
        return cls(max_slope_deg=float(s.agent_max_slope), jump_height=float(s.max_jump_height),
                   climb_height=float(s.max_climb_height), step_height=float(s.agent_max_climb),
                   reach=float(s.agent_radius) + GROUND_REACH,
                   body_radius=max(float(s.agent_radius), MIN_BODY_RADIUS),
                   body_height=float(s.agent_height))


class FoundLedges(NamedTuple):
    """Found ledges, one row each."""

    ends: np.ndarray  # (L, 2, 3) float64, both ends at one height
    front: np.ndarray  # (L, 3) float64 unit horizontal normal of the wall's front
    height: np.ndarray  # (L,) float64 least wall height (edge above the front ground)
    wall_triangle: np.ndarray  # (L,) int64 a wall triangle of the ledge
    name: list  # (L,) str


def empty_found() -> FoundLedges:
    return FoundLedges(np.zeros((0, 2, 3)), np.zeros((0, 3)), np.zeros(0), np.zeros(0, np.int64),
                       [])


def candidate_edges(vertices, triangles, max_slope_deg, allowed=None):
    """Wall top edges: (a (C, 3), b (C, 3), front (C, 3), wall triangle (C,)) -- see the
    module doc, point 1. Vectorised numpy."""
    v = np.asarray(vertices, np.float64).reshape(-1, 3)
    t = np.asarray(triangles, np.int64).reshape(-1, 3)
    none = (np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0, np.int64))
    if t.shape[0] == 0:
        return none
    # weld: one id per position (to WELD)
    _, vid = np.unique(np.round(v / WELD).astype(np.int64), axis=0, return_inverse=True)
    vid = vid.reshape(-1)
    tv = v[t]
    nrm = np.cross(tv[:, 1] - tv[:, 0], tv[:, 2] - tv[:, 0])
    ln = np.linalg.norm(nrm, axis=1)
    good = ln > 1e-12
    nz = np.where(good, nrm[:, 2] / np.maximum(ln, 1e-300), 0.0)
    walkable = good & (nz >= math.cos(math.radians(max_slope_deg)) - 1e-9)
    wall = good & (np.abs(nz) <= math.cos(math.radians(WALL_MIN_SLOPE_DEG)))
    if allowed is not None:
        ok = np.asarray(allowed, np.bool_).reshape(-1)
        if ok.shape[0] != t.shape[0]:
            raise ValueError(f"ledge mask: one value per triangle ({t.shape[0]}), got "
                             f"{ok.shape[0]}")
        walkable &= ok
        wall &= ok
    # edges (k = 0, 1, 2: corners k, k+1; the third corner k+2) of each kind of triangle
    def edges_of(mask):
        tri = np.repeat(np.nonzero(mask)[0], 3)
        k = np.tile(np.arange(3), tri.shape[0] // 3)
        a = vid[t[tri, k]]
        b = vid[t[tri, (k + 1) % 3]]
        key = np.minimum(a, b) * (vid.max() + 1) + np.maximum(a, b)
        return key, tri, k

    kw, tw, cw = edges_of(walkable)
    ks, ts, cs = edges_of(wall)
    if kw.size == 0 or ks.size == 0:
        return none
    order = np.argsort(ks, kind="stable")
    ks, ts, cs = ks[order], ts[order], cs[order]
    lo = np.searchsorted(ks, kw, "left")
    hi = np.searchsorted(ks, kw, "right")
    cnt = hi - lo
    wi = np.repeat(np.arange(kw.shape[0]), cnt)
    si = np.repeat(lo, cnt) + (np.arange(wi.shape[0]) - np.repeat(np.cumsum(cnt) - cnt, cnt))
    w_tri, w_k = tw[wi], cw[wi]
    s_tri, s_k = ts[si], cs[si]
    a = v[t[w_tri, w_k]]
    b = v[t[w_tri, (w_k + 1) % 3]]
    w3 = v[t[w_tri, (w_k + 2) % 3]]
    s3 = v[t[s_tri, (s_k + 2) % 3]]
    d = b - a
    dxy = np.hypot(d[:, 0], d[:, 1])
    level = np.abs(d[:, 2]) <= math.tan(math.radians(EDGE_MAX_SLOPE_DEG)) * dxy
    down = s3[:, 2] < np.minimum(a[:, 2], b[:, 2]) - 0.05  # the wall goes down
    front = np.stack([d[:, 1], -d[:, 0], np.zeros_like(dxy)], 1) / np.maximum(dxy, 1e-12)[:, None]
    away = np.einsum("ij,ij->i", (w3 - a)[:, :2], front[:, :2])
    front = np.where((away > 0)[:, None], -front, front)  # away from the walkable side
    keep = level & down & (dxy > 1e-6) & (np.abs(away) > 1e-9)
    # one row per edge and front (a wall both of whose sides are walkable stays twice)
    rows = np.nonzero(keep)[0]
    key = np.stack([kw[wi[rows]], np.sign(np.round(front[rows, 0], 6)).astype(np.int64),
                    np.sign(np.round(front[rows, 1], 6)).astype(np.int64)], 1)
    _, first = np.unique(key, axis=0, return_index=True)
    rows = rows[np.sort(first)]
    return a[rows], b[rows], front[rows], s_tri[rows]


@njit(cache=True)
def _sample_tests(pts, front, tris, start, items, origin, cell, nx, ny, reach, step, zlo):
    """Per sample point: (highest navmesh z in front within reach and not above the edge
    by more than ``step`` (-inf: none, nor lower than ``zlo``), whether navmesh behind the
    edge within reach is level with it)."""
    n = pts.shape[0]
    front_z = np.full(n, -np.inf)
    top_ok = np.zeros(n, np.bool_)
    n_tri = tris.shape[0]
    stamp = np.full(n_tri, -1, np.int64)
    lo = np.empty((n_tri, 3))
    hi = np.empty((n_tri, 3))
    for t in range(n_tri):
        for a in range(3):
            lo[t, a] = min(tris[t, 0, a], tris[t, 1, a], tris[t, 2, a])
            hi[t, a] = max(tris[t, 0, a], tris[t, 1, a], tris[t, 2, a])
    for k in range(n):
        px, py, pz = pts[k, 0], pts[k, 1], pts[k, 2]
        i0, i1, j0, j1 = _cell_range(px - reach, px + reach, py - reach, py + reach, origin,
                                     cell, nx, ny)
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                c = j * nx + i
                for m in range(start[c], start[c + 1]):
                    t = items[m]
                    if stamp[t] == k:
                        continue
                    stamp[t] = k
                    if lo[t, 2] > pz + step or hi[t, 2] < zlo[k] or lo[t, 0] > px + reach \
                            or hi[t, 0] < px - reach or lo[t, 1] > py + reach \
                            or hi[t, 1] < py - reach:
                        continue
                    x, y, z, d = _closest_on_triangle_xy(px, py, tris, t)
                    if d > reach:
                        continue
                    side = (x - px) * front[k, 0] + (y - py) * front[k, 1]
                    if side > 0.02:
                        if zlo[k] <= z <= pz + step and z > front_z[k]:
                            front_z[k] = z
                    elif side <= 0.0 and abs(z - pz) <= step:
                        top_ok[k] = True
    return front_z, top_ok


def find_ledges(vertices, triangles, navmesh, criteria: LedgeCriteria,
                grid: TriangleGrid | None = None, allowed=None, triangle_object=None,
                object_names=None, surface=None) -> FoundLedges:
    """The found ledges of a scene (``vertices``/``triangles``: the walkable geometry the
    navmesh was baked from; ``grid``: its triangles binned, :func:`climb.triangle_grid`;
    ``surface``: the navmesh's ``climb_geom.SurfaceGrid`` when already built)."""
    from .climb_geom import triangle_grid

    a, b, front, wall_tri = candidate_edges(vertices, triangles, criteria.max_slope_deg,
                                            allowed)
    if a.shape[0] == 0 or navmesh.polygon_count == 0:
        return empty_found()
    # sample points along each candidate edge
    length = np.linalg.norm((b - a)[:, :2], axis=1)
    count = np.maximum(np.ceil(length / SAMPLE_SPACING).astype(np.int64), 1) + 1
    edge = np.repeat(np.arange(a.shape[0]), count)
    first = np.cumsum(count) - count
    frac = (np.arange(edge.shape[0]) - first[edge]) / (count[edge] - 1)
    pts = a[edge] + frac[:, None] * (b - a)[edge]
    fr = np.ascontiguousarray(front[edge])
    if surface is None:
        surface = surface_grid(navmesh)
    stris = surface.tris
    if stris.shape[0] == 0:
        return empty_found()
    origin, cell, nx, ny = surface.origin, surface.cell, surface.nx, surface.ny
    gstart, gitems = surface.grid_start, surface.grid_items
    zlo = pts[:, 2] - criteria.climb_height
    front_z, top_ok = _sample_tests(np.ascontiguousarray(pts), fr, stris, gstart, gitems,
                                    origin, float(cell), int(nx), int(ny),
                                    float(criteria.reach), float(criteria.step_height), zlo)
    height = pts[:, 2] - front_z
    ok = top_ok & (height > criteria.jump_height) & (height <= criteria.climb_height)
    # room for a hanging agent (only where the rest passed)
    idx = np.nonzero(ok)[0]
    if idx.size:
        g = grid if grid is not None else triangle_grid(vertices, triangles)
        p, f = pts[idx], fr[idx]
        r = float(criteria.body_radius)
        bottom = np.maximum(p[:, 2] - criteria.body_height, front_z[idx] + 0.1)
        up = p[:, 2] - 0.05
        near = p + f * PROBE_GAP
        one, two = p + f * r, p + f * (2.0 * r)

        def at(q, z):
            out = q.copy()
            out[:, 2] = z
            return out

        # two vertical lines, and horizontal ones across the body every PROBE_STEP
        segs = [(at(one, up), at(one, bottom)), (at(two, up), at(two, bottom))]
        levels = max(int(math.ceil(float((up - bottom).max()) / PROBE_STEP)), 1)
        for k in range(levels + 1):
            z = up + (bottom - up) * (k / levels)
            segs.append((at(near, z), at(two, z)))
        blocked = np.zeros(idx.size, np.bool_)
        for s0, s1 in segs:
            blocked |= _segment_hits(np.ascontiguousarray(s0), np.ascontiguousarray(s1),
                                     g.tris, g.lo, g.hi, g.origin, g.cell, g.nx, g.ny,
                                     g.start, g.items)
        ok[idx[blocked]] = False
    return _pieces(a, b, front, wall_tri, edge, frac, ok, height, triangle_object, object_names)


def _pieces(a, b, front, wall_tri, edge, frac, ok, height, triangle_object, object_names):
    """Runs of passing samples on each edge, joined across edges on one line."""
    rows = []  # (angle key, offset key, z key, s0, s1, edge, least height)
    ok = np.asarray(ok, np.bool_)
    new_edge = np.ones(edge.shape[0], np.bool_)
    new_edge[1:] = edge[1:] != edge[:-1]
    prev_ok = np.zeros(edge.shape[0], np.bool_)
    prev_ok[1:] = ok[:-1]
    next_ok = np.zeros(edge.shape[0], np.bool_)
    next_ok[:-1] = ok[1:]
    last_of_edge = np.ones(edge.shape[0], np.bool_)
    last_of_edge[:-1] = new_edge[1:]
    run_first = np.nonzero(ok & (new_edge | ~prev_ok))[0]
    run_last = np.nonzero(ok & (last_of_edge | ~next_ok))[0]
    for i, j in zip(run_first.tolist(), run_last.tolist(), strict=True):
        e = int(edge[i])
        f = front[e]
        u = np.array([-f[1], f[0]])  # along the line, fixed by the front
        p0 = a[e] + frac[i] * (b[e] - a[e])
        p1 = a[e] + frac[j] * (b[e] - a[e])
        s0, s1 = sorted((float(p0[:2] @ u), float(p1[:2] @ u)))
        rows.append((round(math.atan2(f[1], f[0]) * 1000.0), round(float(a[e, :2] @ f[:2]) * 100),
                     round(float(0.5 * (p0[2] + p1[2])) * 100), s0, s1, e,
                     float(height[i:j + 1].min())))
    rows.sort()
    merged: list[tuple] = []
    for r in rows:
        if merged and merged[-1][:3] == r[:3] and r[3] <= merged[-1][4] + SAMPLE_SPACING * 0.5:
            m = merged[-1]
            merged[-1] = (*m[:4], max(m[4], r[4]), m[5], min(m[6], r[6]))
        else:
            merged.append(r)
    ends, fronts, heights, walls, names = [], [], [], [], []
    for _, _, _, s0, s1, e, h in merged:
        if s1 - s0 < MIN_FOUND_LEDGE:
            continue
        f = front[e]
        u = np.array([-f[1], f[0]])
        off = float(a[e, :2] @ f[:2])
        z = float(0.5 * (a[e, 2] + b[e, 2]))
        p = [np.array([*(off * f[:2] + s * u), z]) for s in (s0, s1)]
        ends.append(np.stack(p))
        fronts.append(f)
        heights.append(h)
        walls.append(int(wall_tri[e]))
    if not ends:
        return empty_found()
    for k, w in enumerate(walls):
        owner = ""
        if triangle_object is not None and object_names is not None:
            obj = int(np.asarray(triangle_object)[w])
            owner = f"{object_names[obj]} " if 0 <= obj < len(object_names) else ""
        names.append(f"{owner}{FOUND_LEDGE_PREFIX} {k}")
    return FoundLedges(np.array(ends), np.array(fronts), np.array(heights),
                       np.array(walls, np.int64), names)


__all__ = ["FOUND_LEDGE_PREFIX", "FoundLedges", "LedgeCriteria", "candidate_edges",
           "find_ledges"]
