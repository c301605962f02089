"""Automatic jump links: drops, jumps across gaps and jumps up onto ledges.

Method (docs/jump-links.md has the full model and the reasons):

1. sample the navmesh border edges of standing polygons every ``link_sample_step``;
2. from each sample march outward along the edge normal (then diagonally, up to
   ``link_search_angle`` either side, for kinds the normal did not find) looking for
   navmesh ground, and take the first landing per kind whose trajectory is valid
   (``links_model``: run-up to the ledge, ballistic flight within the jump limits, run-out;
   the agent's cylinder swept through the solid heightfield);
3. group neighbouring samples with the same kind, direction and mode into wide links,
   re-test the grouped links where they will be used and split them where they fail, drop
   links narrower than ``min_link_width``;
4. test each link backwards; a link valid both ways is bidirectional (a drop that can be
   jumped back up is stored as the jump up, starting on the lower side);
5. remove near-duplicates (both segments within an agent radius of a kept link's).

Fills the ``link_*`` arrays of the NavMesh in place and returns a summary dict.
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

import numpy as np
from numba import njit

from .debug import LINK_REJECT, REJECT_NO_LANDING, REJECT_NONE, REJECT_TOO_NARROW
from .kinds import (
    AREA_STAND,
    GENERATED_LINK_KINDS,
    LINK_DROP,
    LINK_JUMP_ACROSS,
    LINK_JUMP_UP,
    LINK_KINDS,
)
from .links_debug import REFUSAL
from .links_geom import (
    make_grid,
    polygon_index,
    triangle_index,
)
from .links_model import LANDING, LINK, MODE_JUMP, SAMPLE
from .links_search import (
    SEARCH_COUNTS,
    VALIDATE_COUNTS,
    Settle,
    group_runs,
    keep_distinct,
    merge_links,
    midpoint_polys,
    reverse_valid,
    search_landings,
    validate_groups,
)
from .navmesh import empty_links, kind_link_areas
from .parallel import run_async, run_banded
from .query.spatial import surface_height
from .settings import link_params, link_sample_step

# bin sizes of the look-up grids, in cells: polygons, input triangles (a body test visits
# the bins its box overlaps; smaller bins list fewer far triangles)
POLYGON_BIN_CELLS = 8.0
TRIANGLE_BIN_CELLS = 4.0



class SearchCounts(NamedTuple):
    """The landing search's operation counts, summed over the samples (the build summary's
    ``search_counts``)."""

    landing_lookups: int
    run_ups: int
    touchdowns: int
    flights: int
    march_steps: int
    wall_tests: int

    @classmethod
    def of(cls, counts) -> SearchCounts:
        """From the per-sample ``links_search.SEARCH_COUNTS`` rows."""
        return cls(int(counts["lookups"].sum()), int(counts["run_ups"].sum()),
                   int(counts["touchdowns"].sum()), int(counts["flights"].sum()),
                   int(counts["march"].sum()), int(counts["wall_tests"].sum()))


class ValidateCounts(NamedTuple):
    """The validation's operation counts, summed over the groups (the build summary's
    ``validate_counts``)."""

    groups: int
    parts: int
    grow_positions: int
    full_positions: int
    full_fails: int

    @classmethod
    def of(cls, vc) -> ValidateCounts:
        """From the per-group ``links_search.VALIDATE_COUNTS`` rows."""
        return cls(int(vc.shape[0]), int(vc["parts"].sum()), int(vc["grow"].sum()),
                   int(vc["full"].sum()), int(vc["full_fails"].sum()))


def segment_lengths(segments: np.ndarray) -> np.ndarray:
    """Lengths (3D) of (L, 2, 3) segments."""
    return np.linalg.norm(segments[:, 1] - segments[:, 0], axis=1)


def judged_width(kind: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The width ``min_link_width`` is judged on: the start segment's length; a jump up's,
    the shorter of its two segments (its start on the lower ground grows along it past
    the higher ground's ends, a fan onto a shorter end; a jump up and the drop that is its
    way back are so judged on the same, upper segment)."""
    width = segment_lengths(starts)
    up = kind == LINK_JUMP_UP
    width[up] = np.minimum(width[up], segment_lengths(ends[up]))
    return width


def search_stride(min_width: float, step: float) -> int:
    """Every how many samples the first search pass looks: a link needs a run of samples
    spanning min_width (a group reaches half a sample beyond its ends), i.e. at least
    this many samples at most ``step`` apart, and any run of that many neighbouring
    samples holds one whose index is a multiple of it."""
    return int(math.floor((min_width - 1e-6) / step)) + 1 if min_width > 0.0 else 1


def search_directions(angle_deg: float) -> np.ndarray:
    """Angles tried from the edge normal, in order: 0, +angle, -angle (radians)."""
    if angle_deg <= 0.0:
        return np.zeros(1)
    a = math.radians(angle_deg)
    return np.array([0.0, a, -a])


def _polygon_surfaces(nm):
    """Per-polygon surface triangles (T, 3, 3) and CSR starts: the detail mesh, or a fan
    over the polygon when it has no detail triangles."""
    n_poly = nm.polygon_count
    nv = nm.polygon_vertex_count().astype(np.int64)
    dm = np.asarray(nm.detail_meshes, np.int64).reshape(-1, 4)
    use_detail = np.zeros(n_poly, np.bool_)
    if dm.shape[0] == n_poly and nm.detail_triangles.shape[0]:
        use_detail = dm[:, 3] > 0
    counts = np.where(use_detail, dm[:, 3] if use_detail.any() else 0, np.maximum(nv - 2, 0))
    start = np.zeros(n_poly + 1, np.int64)
    np.cumsum(counts, out=start[1:])
    tris = np.zeros((int(start[-1]), 3, 3), np.float64)
    det = np.nonzero(use_detail)[0]
    if det.size:
        cnt = dm[det, 3]
        rows = np.repeat(dm[det, 2] - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))
        base = np.repeat(dm[det, 0], cnt)
        dst = np.repeat(start[det] - np.cumsum(cnt) + cnt, cnt) + np.arange(int(cnt.sum()))
        tris[dst] = nm.detail_vertices[nm.detail_triangles[rows, :3] + base[:, None]]
    for p in np.nonzero(~use_detail)[0]:
        v = nm.polygon_vertices(int(p))
        for i in range(1, len(v) - 1):
            tris[start[p] + i - 1] = (v[0], v[i], v[i + 1])
    return tris, start


class Chains(NamedTuple):
    """``border_chains``' answer: the border edges in chain order, and each one's chain."""

    order: np.ndarray
    chain: np.ndarray


@njit(cache=True, nogil=True)
def border_chains(pverts, polys, pnv, border_p, border_e):
    """Order the border edges into chains that follow the navmesh border: each edge is
    followed by the border edge starting where it ends (across polygons). Open chains
    start at an edge nothing leads into; a closed loop starts at its sharpest corner, so
    that a straight stretch of border is never cut by where the walk began. Returns
    (order, chain id per ordered edge)."""
    ne = border_p.shape[0]
    nv = pverts.shape[0]
    va = np.empty(ne, np.int64)
    vb = np.empty(ne, np.int64)
    for k in range(ne):
        p = border_p[k]
        e = border_e[k]
        va[k] = polys[p, e]
        vb[k] = polys[p, (e + 1) % pnv[p]]
    start = np.zeros(nv + 1, np.int64)
    incoming = np.zeros(nv, np.int64)
    for k in range(ne):
        start[va[k] + 1] += 1
        incoming[vb[k]] += 1
    for v in range(nv):
        start[v + 1] += start[v]
    fill = start[:-1].copy()
    items = np.empty(ne, np.int64)
    for k in range(ne):
        items[fill[va[k]]] = k
        fill[va[k]] += 1
    visited = np.zeros(ne, np.bool_)
    order = np.empty(ne, np.int64)
    chain = np.empty(ne, np.int64)
    m = 0
    nc = 0
    for rnd in range(2):  # open chains first, then closed loops
        for e0 in range(ne):
            if visited[e0] or (rnd == 0 and incoming[va[e0]] > 0):
                continue
            begin = m
            e = e0
            while e >= 0 and not visited[e]:
                visited[e] = True
                order[m] = e
                chain[m] = nc
                m += 1
                nxt = -1
                for q in range(start[vb[e]], start[vb[e] + 1]):
                    if not visited[items[q]]:
                        nxt = items[q]
                        break
                e = nxt
            cnt = m - begin
            if rnd == 1 and cnt > 2 and vb[order[m - 1]] == va[order[begin]]:
                # closed: start at the sharpest turn
                best = -1.0
                best_i = 0
                for i in range(cnt):
                    a = order[begin + (i - 1) % cnt]
                    b = order[begin + i]
                    ax = pverts[vb[a], 0] - pverts[va[a], 0]
                    ay = pverts[vb[a], 1] - pverts[va[a], 1]
                    bx = pverts[vb[b], 0] - pverts[va[b], 0]
                    by = pverts[vb[b], 1] - pverts[va[b], 1]
                    la = math.sqrt(ax * ax + ay * ay)
                    lb = math.sqrt(bx * bx + by * by)
                    turn = 1.0 - (ax * bx + ay * by) / (la * lb) if la * lb > 0 else 0.0
                    if turn > best + 1e-12:
                        best = turn
                        best_i = i
                rolled = np.empty(cnt, np.int64)
                for i in range(cnt):
                    rolled[i] = order[begin + (best_i + i) % cnt]
                order[begin:m] = rolled
            nc += 1
    return order, chain  # a plain tuple: see links_geom.TriangleBins


@njit(cache=True, nogil=True)
def _sample_edges(pverts, polys, pnv, border_p, border_e, chain, step, dtris, dstart):
    """Samples every ``step`` (centred, at most step apart) along each straight run of
    border edges, in the edges' order (``border_chains``): ``SAMPLE`` rows.
    A run is one edge or consecutive edges of a chain on one line: a border cut by a
    vertex that changes nothing of its line (a region boundary meeting it, a tile edge)
    is sampled as if it were not cut. Each sample names the edge it lies on."""
    ne = border_p.shape[0]
    run_end = _straight_runs(pverts, polys, pnv, border_p, border_e, chain)
    total = 0
    k = 0
    while k < ne:
        ln = 0.0
        for q in range(k, run_end[k]):
            ln += _edge_length(pverts, polys, pnv, border_p[q], border_e[q])
        total += max(1, int(math.ceil(ln / step - 1e-9)))
        k = run_end[k]
    out = np.empty(total, SAMPLE)
    m = 0
    k = 0
    while k < ne:
        kend = run_end[k]
        ln = 0.0
        for q in range(k, kend):
            ln += _edge_length(pverts, polys, pnv, border_p[q], border_e[q])
        n = max(1, int(math.ceil(ln / step - 1e-9)))
        q = k  # the edge the next sample lies on, and the run's length before it
        before = 0.0
        for i in range(n):
            at = (i + 0.5) / n * ln
            while q < kend - 1 and at > before + _edge_length(pverts, polys, pnv,
                                                             border_p[q], border_e[q]):
                before += _edge_length(pverts, polys, pnv, border_p[q], border_e[q])
                q += 1
            p = border_p[q]
            e = border_e[q]
            a = pverts[polys[p, e]]
            b = pverts[polys[p, (e + 1) % pnv[p]]]
            dx = b[0] - a[0]
            dy = b[1] - a[1]
            le = math.sqrt(dx * dx + dy * dy)
            ex = dx / le if le > 0 else 1.0
            ey = dy / le if le > 0 else 0.0
            t = min(max(at - before, 0.0), le)
            x = a[0] + t * ex
            y = a[1] + t * ey
            # height of the polygon surface just inside the edge
            z = surface_height(dtris, dstart[p], dstart[p + 1], x - 0.01 * ey, y + 0.01 * ex)
            row = out[m]
            row.x, row.y, row.z = x, y, z
            # outward normal: right of a->b for a CCW polygon
            row.ex, row.ey, row.nx, row.ny = ex, ey, ey, -ex
            row.poly, row.edge, row.step, row.chain = p, q, ln / n, chain[q]
            m += 1
        k = kend
    return out


@njit(cache=True)
def _edge_length(pverts, polys, pnv, p, e):
    a = pverts[polys[p, e]]
    b = pverts[polys[p, (e + 1) % pnv[p]]]
    return math.sqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2)


@njit(cache=True)
def _straight_runs(pverts, polys, pnv, border_p, border_e, chain):
    """For each ordered border edge, the end (exclusive) of the straight run it starts:
    the following edges of its chain that go on from it along the same line (within 1e-6
    of its direction, in plan)."""
    ne = border_p.shape[0]
    run_end = np.empty(ne, np.int64)
    k = ne - 1
    while k >= 0:
        run_end[k] = k + 1
        if k + 1 < ne and chain[k + 1] == chain[k]:
            p, e = border_p[k], border_e[k]
            p2, e2 = border_p[k + 1], border_e[k + 1]
            a = pverts[polys[p, e]]
            b = pverts[polys[p, (e + 1) % pnv[p]]]
            c = pverts[polys[p2, e2]]
            d = pverts[polys[p2, (e2 + 1) % pnv[p2]]]
            ux, uy = b[0] - a[0], b[1] - a[1]
            vx, vy = d[0] - c[0], d[1] - c[1]
            lu = math.sqrt(ux * ux + uy * uy)
            lv = math.sqrt(vx * vx + vy * vy)
            if lu > 0 and lv > 0 and abs(b[0] - c[0]) < 1e-9 and abs(b[1] - c[1]) < 1e-9 \
                    and abs(ux * vy - uy * vx) < 1e-6 * lu * lv and ux * vx + uy * vy > 0:
                run_end[k] = run_end[k + 1]
        k -= 1
    return run_end


def _empty_result(nm):
    for name, empty in empty_links().items():
        setattr(nm, name, empty)


def _rejected_candidates(samples, res, found_at, rej, narrow_groups, narrow_starts,
                        narrow_ends, narrow_kinds):
    """The refused candidates as ``debug.LINK_REJECT`` rows: the search's record (per
    sample and kind not found, the first refusal), the groups of samples too narrow to
    become a link (at their middle sample) and the fitted links dropped as narrower than
    ``min_link_width`` (at their segments' midpoints)."""
    nan = np.float32(np.nan)
    reason = rej["reason"]
    si, sk = np.nonzero((reason != REJECT_NONE) & ~found_at[:reason.shape[0]])
    mid = (narrow_groups["i0"] + narrow_groups["i1"]) // 2
    gk = narrow_groups["kind"]
    n1, n2, n3 = si.size, mid.size, narrow_kinds.shape[0]
    out = np.zeros(n1 + n2 + n3, LINK_REJECT)
    for name in ("x", "y", "z"):
        out[name][:n1] = samples[name][si]
        out[name][n1:n1 + n2] = samples[name][mid]
    found = rej[si, sk]
    for name, field in (("tx", "x"), ("ty", "y"), ("tz", "z")):
        out[name][:n1] = found[field]
        out[name][n1:n1 + n2] = res[field][mid, gk]
    for name in ("bx", "by", "bz"):
        out[name][:n1] = found[name]
        out[name][n1:] = nan
    r = reason[si, sk]
    out["reason"][:n1] = r
    out["kind"][:n1] = np.where(r == REJECT_NO_LANDING, -1, sk)
    out["reason"][n1:] = REJECT_TOO_NARROW
    out["kind"][n1:n1 + n2] = gk
    out["kind"][n1 + n2:] = narrow_kinds
    if n3:
        s_mid = narrow_starts.mean(axis=1)
        e_mid = narrow_ends.mean(axis=1)
        for k, (a, b) in enumerate((("x", "tx"), ("y", "ty"), ("z", "tz"))):
            out[a][n1 + n2:] = s_mid[:, k]
            out[b][n1 + n2:] = e_mid[:, k]
    return out


# A link whose way back fails at its last test position or two only (a knife-edge where
# a take-off body meets a corner: the pillar in a gap moved 18 micrometres) is kept
# two-way, shortened by those positions, rather than one-way at full width beside a
# one-way link the other way.
BACK_TRIM = 2


def _trim_to_way_back(rev, kind, starts, ends, width, length, start_poly, end_poly,
                      edge_dirs, min_width, enabled, prm, tri, vox, pidx):
    """Shorten the links whose way back holds only without a few end positions (between
    fractions ``rev.f_lo`` and ``rev.f_hi`` along them) to where it holds, when they stay
    at least ``min_width`` wide (a jump up at both ends); the others among them stay
    one-way (``rev.ok`` cleared). The shortened link's positions are some of those it was
    tested at; they are tested forwards again, which gives its mean path length
    (``length``), and its polygons are found again under the new midpoints (where a
    midpoint is off the navmesh, the link stays one-way at full width). Updates the arrays
    in place."""
    rows = np.nonzero(rev.ok & ((rev.f_lo > 0.0) | (rev.f_hi < 1.0)))[0]
    if rows.size == 0:
        return
    f_lo, f_hi = rev.f_lo[rows], rev.f_hi[rows]
    new = []
    for seg in (starts, ends):
        a = seg[rows, 0]
        d = seg[rows, 1] - a
        new.append(np.ascontiguousarray(
            np.stack([a + f_lo[:, None] * d, a + f_hi[:, None] * d], axis=1)))
    new_starts, new_ends = new
    new_width = segment_lengths(new_starts)
    jump = np.full(rows.size, MODE_JUMP, np.int64)
    fwd = reverse_valid(new_ends, new_starts, jump, np.ascontiguousarray(edge_dirs[rows]),
                        enabled, prm, tri, vox, count_on_ends=True)
    keep = ((judged_width(kind[rows], new_starts, new_ends) >= min_width - 1e-9) & fwd.ok
            & (fwd.kind == kind[rows]))
    # the shortened segments' midpoints must be on polygons too, as every link's are: at
    # a convex corner of the border the new midpoint can lie just off the navmesh
    # (dungeon.obj turned 127.07 degrees: 3 cm beyond a border vertex), and the link
    # then stays one-way at full width
    sp = np.full(rows.size, -1, np.int32)
    ep = np.full(rows.size, -1, np.int32)
    midpoint_polys(new_starts, new_ends, np.nonzero(keep)[0].astype(np.int64), prm, pidx,
                   sp, ep)
    keep &= sp >= 0
    rev.ok[rows[~keep]] = False
    rows = rows[keep]
    starts[rows], ends[rows] = new_starts[keep], new_ends[keep]
    width[rows] = new_width[keep]
    length[rows] = fwd.length[keep]
    start_poly[rows], end_poly[rows] = sp[keep], ep[keep]


def _check_flips(flip, rev, starts, ends, edge_dirs, enabled, prm, tri, vox):
    """Test the drops about to be stored as the jump up of their way back (``flip``) again,
    both ways, at the positions of their new start segment. A link's positions are
    counted on its start segment's length (``check_positions``): the validation and the
    reverse test counted them on the drop's take-off segment, and its landing segment's
    count can differ where the two segments' heights slope differently (dungeon.obj
    tiled 5 x 5 at agent_max_climb 0.4: a take-off without ground at one of the new
    positions). Where one way fails there, the drop stays a drop (valid both ways at its
    own positions). Updates ``flip`` and ``rev.length`` in place; flips are few, so all
    are tested again."""
    rows = np.nonzero(flip)[0].astype(np.int64)
    if rows.size == 0:
        return
    jump = np.full(rows.size, MODE_JUMP, np.int64)
    s_r = np.ascontiguousarray(starts[rows])
    e_r = np.ascontiguousarray(ends[rows])
    d_r = np.ascontiguousarray(edge_dirs[rows])
    up = reverse_valid(s_r, e_r, jump, d_r, enabled, prm, tri, vox, count_on_ends=True)
    down = reverse_valid(e_r, s_r, jump, d_r, enabled, prm, tri, vox)
    ok = up.ok & (up.kind == LINK_JUMP_UP) & down.ok & (down.kind == LINK_DROP)
    flip[rows] = ok
    rev.length[rows[ok]] = up.length[ok]


def triangle_index_key(cfg) -> tuple:
    """What the link stage's input-triangle index depends on besides the triangles: the
    grid (``cfg.bmin``, ``width``, ``height``, ``cs``) and the slope (``walkable_slope_cos``);
    not the agent's radius, heights, climb or jump settings. Bakes of the same triangles
    with equal keys can share one index (``core.agents``)."""
    return ("link_triangles", float(cfg.cs), int(cfg.width), int(cfg.height),
            *(float(x) for x in cfg.bmin[:2]), float(cfg.walkable_slope_cos))


def start_triangle_index(cfg, vertices, triangles):
    """Start building the input-triangle index of the link stage on the pool (see
    ``triangle_index_key``); ``.result()`` waits for it. Read-only once built."""
    bmax = cfg.bmin + np.array([cfg.width * cfg.cs, cfg.height * cfg.cs, 0.0])
    return run_async(triangle_index, vertices, triangles, cfg.walkable_slope_cos,
                     make_grid(cfg.bmin, bmax, TRIANGLE_BIN_CELLS * cfg.cs))


def build_links(nm, hf, chf, cfg, settings, vertices, triangles, debug=None,
                tri_job=None) -> dict:
    """Generate jump links for a baked navmesh (world units) in place; returns a summary:
    counts per kind, border edges, border edges with a link, samples, timings (ms) and
    ``messages`` for the user (empty when all went normally). ``debug``: a
    ``core.debug.BakeDebug`` whose ``link_rejects`` get the refused candidates.
    ``tri_job``: the input-triangle index from ``start_triangle_index`` for these
    triangles and ``cfg`` (shared between agents), else built here."""
    t_start = time.perf_counter()
    timings: dict[str, float] = {}
    info: dict = {"messages": [], "border_edges": 0, "border_edges_linked": 0, "samples": 0,
                  "counts": {k: 0 for k in LINK_KINDS}, "timings_ms": timings}
    _empty_result(nm)
    step = link_sample_step(settings, cfg.cs)
    enabled = np.zeros(len(GENERATED_LINK_KINDS), np.bool_)
    enabled[LINK_DROP] = settings.drop_enabled
    enabled[LINK_JUMP_ACROSS] = settings.jump_across_enabled
    enabled[LINK_JUMP_UP] = settings.jump_up_enabled
    if settings.max_jump_height <= 0.0 and (enabled[LINK_JUMP_ACROSS] or enabled[LINK_JUMP_UP]):
        info["messages"].append("max_jump_height is 0: no jumps, only walk-off drops")
        enabled[LINK_JUMP_ACROSS] = enabled[LINK_JUMP_UP] = False
    if settings.max_jump_distance <= 0.0 and enabled.any():
        info["messages"].append("max_jump_distance is 0: nothing can be crossed, no links")
        enabled[:] = False
    if not enabled.any():
        info["messages"].append("every link kind is disabled (or impossible): no links")
        return info
    if nm.polygon_count == 0:
        info["messages"].append("the navmesh is empty: no links")
        return info

    polys = np.ascontiguousarray(nm.polygons, np.int32)
    pnv = nm.polygon_vertex_count().astype(np.int32)
    pverts = np.ascontiguousarray(nm.vertices, np.float64)
    nvp = polys.shape[1]
    slot = np.arange(nvp)[None, :]
    stand = np.asarray(nm.polygon_area) == AREA_STAND
    border = (slot < pnv[:, None]) & (nm.neighbours < 0) & stand[:, None]
    border_p, border_e = (a.astype(np.int32) for a in np.nonzero(border))
    order, chain = Chains(*border_chains(pverts, polys, pnv, border_p, border_e))
    border_p = np.ascontiguousarray(border_p[order])
    border_e = np.ascontiguousarray(border_e[order])
    info["border_edges"] = int(border_p.size)
    if border_p.size == 0:
        info["messages"].append("the navmesh has no border edges (no ledges or walls on "
                                "standing ground): nothing to link")
        return info

    # the triangle index is built on the pool (a bake starts it before its stages:
    # tri_job) while this thread samples the edges and indexes the polygons
    bmax = cfg.bmin + np.array([cfg.width * cfg.cs, cfg.height * cfg.cs, 0.0])
    if tri_job is None:
        tri_job = start_triangle_index(cfg, vertices, triangles)
    t0 = time.perf_counter()
    dtris, dstart = _polygon_surfaces(nm)
    samples = _sample_edges(pverts, polys, pnv, border_p, border_e, chain, step, dtris,
                             dstart)
    info["samples"] = int(samples.shape[0])
    prm = cfg.links
    if prm is None:  # a configuration made without links_enabled
        prm = link_params(settings, cfg.cs, cfg.ch, cfg.bmin, cfg.width, cfg.height,
                          cfg.walkable_climb)
    timings["samples"] = (time.perf_counter() - t0) * 1000.0

    # look-up grids of the polygons and of the input triangles (one grid binning:
    # query.spatial.fill_grid)
    t0 = time.perf_counter()
    pidx = polygon_index(pverts, polys, pnv, stand, dtris, dstart,
                         make_grid(cfg.bmin, bmax, POLYGON_BIN_CELLS * cfg.cs))
    timings["polygon_index"] = (time.perf_counter() - t0) * 1000.0
    t0 = time.perf_counter()
    tri = tri_job.result()
    timings["triangle_index_wait"] = (time.perf_counter() - t0) * 1000.0
    vox = (hf.column_head, hf.span_min, hf.span_max, hf.span_next)
    chfa = (chf.cell_index, chf.cell_count, chf.span_y, chf.span_area)
    t0 = time.perf_counter()
    angles = search_directions(float(settings.link_search_angle))
    n_samples = samples.shape[0]
    n_kinds = len(GENERATED_LINK_KINDS)
    res = np.zeros((n_samples, n_kinds), LANDING)
    found_at = np.zeros((n_samples, n_kinds), np.bool_)
    # refused candidates, only for debug data (an empty array records nothing)
    rej = np.zeros((n_samples if debug is not None else 0, n_kinds), REFUSAL)
    counts = np.zeros(n_samples, SEARCH_COUNTS)
    min_width = (2.0 * settings.agent_radius if settings.min_link_width < 0
                 else float(settings.min_link_width))

    # each searched sample first gets its height on the triangles (the navmesh's are
    # voxel-rounded) and is moved to where the agent stands clear of walls (the border
    # wanders by up to the contour simplification's error): links_search.settle_sample,
    # on the search's threads, for the samples searched only
    settle = Settle(max(cfg.walkable_climb * cfg.ch, 2.0 * cfg.ch),
                    (1.0 + float(settings.edge_max_error)) * cfg.cs)

    info["samples_searched"] = 0

    def search(which, allow, min_rows=64):
        info["samples_searched"] += int(which.size)
        run_banded(search_landings, int(which.size), samples, np.cos(angles), np.sin(angles),
                   enabled, settle, prm, tri, vox, chfa, pidx, res, found_at, counts, rej,
                   which, allow, min_rows=min_rows, per_worker=32)

    # Every kept link comes from a run of at least `stride` neighbouring samples with a
    # landing (narrower runs are dropped as narrower than min_width), so every stride-th
    # sample is searched first and the others only beside one that found a landing: the
    # same landings, without searching the long stretches of border that have none.
    stride = search_stride(min_width, step)
    every = np.arange(n_samples, dtype=np.int64)
    search(every[::stride].copy(), np.ones((n_samples, n_kinds), np.bool_))
    if stride > 1:
        before = (every // stride) * stride
        after = before + stride
        near = found_at[before] | ((after < n_samples)[:, None]
                                   & found_at[np.minimum(after, n_samples - 1)])
        # and only for the kinds one of the two found: a run of another kind lies between
        # them, too narrow to keep (the debug data records every candidate)
        todo = np.nonzero((every % stride != 0) & near.any(axis=1))[0].astype(np.int64)
        # in one pass (a pass in rounds, outward from the first pass's landings, searched
        # fewer samples but cost more in thread hand-offs than it saved), in small bands:
        # these samples are few, and the ones with landings cost the most
        search(todo, np.ones_like(near) if debug is not None else near, min_rows=8)
    info["search_counts"] = SearchCounts.of(counts)._asdict()
    info["samples_settled"] = int(counts["settled"].sum())
    timings["search"] = (time.perf_counter() - t0) * 1000.0

    t0 = time.perf_counter()
    # the border's voxel steps and contour simplification wander up to about
    # edge_max_error cells from a straight edge: start points within that of a line group
    tol_start = (1.0 + float(settings.edge_max_error)) * cfg.cs
    groups = group_runs(samples, res, found_at, tol_start, tol_start + 0.5 * cfg.cs)
    # a group can grow to half a sample beyond its ends, no more: skip hopeless ones
    reach = (groups["i1"] - groups["i0"] + 1) * samples["step"][groups["i0"]]
    hopeless = reach < min_width - 1e-9
    narrow_groups = groups[hopeless]
    groups = np.ascontiguousarray(groups[~hopeless])
    sizes = groups["i1"] - groups["i0"] + 1
    offsets = np.zeros(sizes.size + 1, np.int64)
    np.cumsum(sizes, out=offsets[1:])
    out = np.empty(int(offsets[-1]), LINK)
    out_n = np.zeros(sizes.size, np.int64)
    vc = np.zeros(sizes.size, VALIDATE_COUNTS)
    run_banded(validate_groups, int(sizes.size), samples, res, groups, offsets, prm, tri, vox,
               pidx, out, out_n, vc, min_rows=1, per_worker=16)
    info["validate_counts"] = ValidateCounts.of(vc)._asdict()
    timings["validate"] = (time.perf_counter() - t0) * 1000.0
    t_merge = time.perf_counter()
    first = np.cumsum(out_n) - out_n
    rows = np.repeat(offsets[:-1], out_n) + np.arange(int(out_n.sum())) - np.repeat(first, out_n)
    links = out[rows]
    # join the pieces of a border that was split where it strayed (kept in sample order)
    order_l = np.lexsort((links["i0"], links["kind"])).astype(np.int64)
    links = np.ascontiguousarray(links[order_l])
    merged = merge_links(links, samples["chain"][links["i0"]],
                         tol_start, 2.0 * tol_start, prm, tri, vox, pidx)
    links = links[merged]
    timings["merge"] = (time.perf_counter() - t_merge) * 1000.0
    timings["group"] = (time.perf_counter() - t0) * 1000.0

    t0 = time.perf_counter()
    i0 = links["i0"]
    kind = links["kind"]
    mode = links["mode"]
    starts = links["start"].copy()
    ends = links["end"].copy()
    width = segment_lengths(starts)
    wide = judged_width(kind, starts, ends) >= min_width - 1e-9
    narrow_links = (starts[~wide], ends[~wide], kind[~wide])  # for the debug data
    sel = np.nonzero(wide)[0]
    i0, kind, mode = i0[sel], kind[sel], mode[sel]
    starts, ends, width = starts[sel], ends[sel], width[sel]
    end_poly = links["end_poly"][sel].astype(np.int32)
    start_poly = links["start_poly"][sel].astype(np.int32)
    length = links["length"][sel]
    edge_of = samples["edge"][i0]

    sd = starts[:, 1, :2] - starts[:, 0, :2]
    edge_dirs = np.ascontiguousarray(sd / np.maximum(np.linalg.norm(sd, axis=1), 1e-12)[:, None])
    rev = reverse_valid(np.ascontiguousarray(starts), np.ascontiguousarray(ends), mode,
                        edge_dirs, enabled, prm, tri, vox, max_trim=BACK_TRIM)
    _trim_to_way_back(rev, kind, starts, ends, width, length, start_poly, end_poly,
                      edge_dirs, min_width, enabled, prm, tri, vox, pidx)
    # a drop that is also a valid jump back up is stored as the jump up
    flip = rev.ok & (kind == LINK_DROP) & (rev.kind == LINK_JUMP_UP)
    _check_flips(flip, rev, starts, ends, edge_dirs, enabled, prm, tri, vox)
    starts[flip], ends[flip] = ends[flip].copy(), starts[flip].copy()
    start_poly[flip], end_poly[flip] = end_poly[flip].copy(), start_poly[flip].copy()
    kind[flip] = LINK_JUMP_UP
    length[flip] = rev.length[flip]
    bidir = rev.ok.copy()

    tol = max(float(settings.agent_radius), float(cfg.cs))
    keep = keep_distinct(starts, ends, bidir, tol)
    timings["reverse_dedupe"] = (time.perf_counter() - t0) * 1000.0

    # edges served: where a kept link starts, or a dropped duplicate of one started
    served = np.zeros(border_p.size, np.bool_)
    served[edge_of] = True
    info["border_edges_linked"] = int(served.sum())

    k = np.nonzero(keep)[0]
    kind_k = kind[k]
    costs = np.zeros(len(GENERATED_LINK_KINDS))
    costs[LINK_DROP] = settings.cost_drop
    costs[LINK_JUMP_ACROSS] = settings.cost_jump_across
    costs[LINK_JUMP_UP] = settings.cost_jump_up
    apex = np.where(mode[k] == MODE_JUMP, float(settings.max_jump_height), 0.0)
    if debug is not None:
        debug.link_rejects = _rejected_candidates(samples, res, found_at, rej, narrow_groups,
                                                  *narrow_links)
    nm.link_kind = kind_k.astype(np.int8)
    nm.link_start = np.ascontiguousarray(starts[k], np.float64)
    nm.link_end = np.ascontiguousarray(ends[k], np.float64)
    nm.link_bidirectional = bidir[k].astype(np.bool_)
    nm.link_start_poly = start_poly[k].astype(np.int32)
    nm.link_end_poly = end_poly[k].astype(np.int32)
    nm.link_apex = apex.astype(np.float64)
    nm.link_length = length[k].astype(np.float64)
    nm.link_cost = (costs[kind_k] * length[k]).astype(np.float64)
    nm.link_area = kind_link_areas(kind_k)
    info["counts"] = {name: int((kind_k == i).sum()) for i, name in enumerate(LINK_KINDS)}
    info["dropped_narrow"] = int((~wide).sum() + hopeless.sum())
    info["dropped_duplicates"] = int((~keep).sum())
    timings["total"] = (time.perf_counter() - t_start) * 1000.0
    return info
