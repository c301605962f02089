"""Independent check of baked jump links, written from the input triangles only.

It re-derives every link's trajectory from the documented model (docs/jump-links.md) —
never from the heightfield or the generator's code — and checks, at positions every half
cell along the link:

* the kind matches the height change, within the limits (jump height, drop height),
  both between the ends and between the ground under them;
* both ends stand on walkable ground (an upward, walkable-slope triangle within climb of
  the end's height, the closest such surface within two cell heights of it) with the
  agent's cylinder free there (stand clearance);
* the reach: airborne distance <= max_jump_distance and horizontal speed <= the take-off
  speed's horizontal part;
* the agent's cylinder (radius r - 0.1 m, from feet + climb to feet + stand height) meets
  no triangle anywhere on the run-up, flight and run-out, sampled every 5 cm;
* bidirectional links the same way backwards; start and end polygons contain the segment
  midpoints, and differ.

``check_links`` returns a list of problems (empty when all links are valid).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

RADIUS_TOLERANCE = 0.1  # documented shrink of the agent radius (voxel rounding)
HEIGHT_TOLERANCE_CELLS = 2  # documented distance of a link's ends from the ground, in cells
CLIMB_TIE = 1e-6  # documented: a rise of exactly agent_max_climb is a step (metres of slack)
PATH_STEP = 0.05  # cylinder samples along the trajectory, metres
BISECT = 10


GRID = 1.0  # metres per bin of the oracle's own triangle grid
BIN_EPS = 1e-6


def _triangle_grid(tris):
    """CSR lists of triangle ids per 1 m bin over the xy bounds of all triangles."""
    lo = tris[:, :, :2].min(axis=(0, 1)) - 1.0
    hi = tris[:, :, :2].max(axis=(0, 1)) + 1.0
    nx, ny = (np.ceil((hi - lo) / GRID).astype(np.int64) + 1)
    # a triangle is listed in every bin within BIN_EPS of its bounds: a point on its edge
    # a rounding error outside a bin boundary still finds it
    b0 = np.floor((tris[:, :, :2].min(axis=1) - BIN_EPS - lo) / GRID).astype(np.int64)
    b1 = np.floor((tris[:, :, :2].max(axis=1) + BIN_EPS - lo) / GRID).astype(np.int64)
    ids, bins = [], []
    for t in range(tris.shape[0]):
        xs = np.arange(b0[t, 0], b1[t, 0] + 1)
        ys = np.arange(b0[t, 1], b1[t, 1] + 1)
        bb = (xs[None, :] + ys[:, None] * nx).ravel()
        bins.append(bb)
        ids.append(np.full(bb.size, t))
    bins = np.concatenate(bins)
    ids = np.concatenate(ids)
    order = np.argsort(bins, kind="stable")
    start = np.zeros(nx * ny + 1, np.int64)
    np.add.at(start, bins + 1, 1)
    return (np.cumsum(start), ids[order].astype(np.int64),
            np.array([lo[0], lo[1], GRID, nx, ny], np.float64))


@njit(cache=True)
def _ground_z(x, y, z, tol, tris, up, start, items, g):
    """Height of the upward walkable triangle surface under (x, y) closest to z within
    tol; NaN when there is none."""
    i = int(np.floor((x - g[0]) / g[2]))
    j = int(np.floor((y - g[1]) / g[2]))
    if i < 0 or j < 0 or i >= int(g[3]) or j >= int(g[4]):
        return np.nan
    b = i + j * int(g[3])
    best = np.nan
    best_d = tol
    for q in range(start[b], start[b + 1]):
        k = items[q]
        if not up[k]:
            continue
        ax, ay, az = tris[k, 0, 0], tris[k, 0, 1], tris[k, 0, 2]
        bx, by, bz = tris[k, 1, 0], tris[k, 1, 1], tris[k, 1, 2]
        cx, cy, cz = tris[k, 2, 0], tris[k, 2, 1], tris[k, 2, 2]
        den = (bx - ax) * (cy - ay) - (cx - ax) * (by - ay)
        if den <= 0.0:
            continue
        u = ((x - ax) * (cy - ay) - (cx - ax) * (y - ay)) / den
        v = ((bx - ax) * (y - ay) - (x - ax) * (by - ay)) / den
        w = 1.0 - u - v
        if u < -1e-9 or v < -1e-9 or w < -1e-9:
            continue
        zz = w * az + u * bz + v * cz
        if abs(zz - z) <= best_d:
            best_d = abs(zz - z)
            best = zz
    return best


@njit(cache=True)
def _clip_z(poly, n, z, keep_above, out):
    m = 0
    for i in range(n):
        a = poly[i]
        b = poly[(i + 1) % n]
        ina = a[2] >= z if keep_above else a[2] <= z
        inb = b[2] >= z if keep_above else b[2] <= z
        if ina:
            out[m] = a
            m += 1
        if ina != inb:
            t = (z - a[2]) / (b[2] - a[2])
            out[m] = a + t * (b - a)
            m += 1
    return m


@njit(cache=True)
def _triangle_hits(t, x, y, zlo, zhi, rad, p0, p1, p2):
    """Does triangle t (3, 3) meet the vertical cylinder (x, y, rad, zlo..zhi)?"""
    if min(t[0, 2], min(t[1, 2], t[2, 2])) >= zhi or max(t[0, 2], max(t[1, 2], t[2, 2])) \
            <= zlo:
        return False
    if min(t[0, 0], min(t[1, 0], t[2, 0])) >= x + rad or \
            max(t[0, 0], max(t[1, 0], t[2, 0])) <= x - rad:
        return False
    if min(t[0, 1], min(t[1, 1], t[2, 1])) >= y + rad or \
            max(t[0, 1], max(t[1, 1], t[2, 1])) <= y - rad:
        return False
    for i in range(3):
        p0[i] = t[i]
    n = _clip_z(p0, 3, zlo, True, p1)
    if n < 3:
        return False
    n = _clip_z(p1, n, zhi, False, p2)
    if n < 3:
        return False
    # 2D distance from (x, y) to the clipped polygon (a segment for vertical triangles)
    inside_pos = True
    inside_neg = True
    best = 1e300
    area = 0.0
    for i in range(n):
        a = p2[i]
        b = p2[(i + 1) % n]
        ex = b[0] - a[0]
        ey = b[1] - a[1]
        cr = ex * (y - a[1]) - ey * (x - a[0])
        if cr < 0.0:
            inside_pos = False
        if cr > 0.0:
            inside_neg = False
        ll = ex * ex + ey * ey
        tt = 0.0
        if ll > 0.0:
            tt = min(max(((x - a[0]) * ex + (y - a[1]) * ey) / ll, 0.0), 1.0)
        dx = a[0] + tt * ex - x
        dy = a[1] + tt * ey - y
        best = min(best, dx * dx + dy * dy)
        area += a[0] * b[1] - b[0] * a[1]
    if (inside_pos or inside_neg) and abs(area) > 1e-12:
        return True
    return best < rad * rad


@njit(cache=True)
def _path_hit(path, climb, height, rad, tris, start, items, g):
    """Index of the first feet position of ``path`` whose cylinder meets a triangle, or -1."""
    p0 = np.empty((8, 3))
    p1 = np.empty((8, 3))
    p2 = np.empty((8, 3))
    nx = int(g[3])
    ny = int(g[4])
    for k in range(path.shape[0]):
        x, y, z = path[k, 0], path[k, 1], path[k, 2]
        i0 = max(int(np.floor((x - rad - g[0]) / g[2])), 0)
        i1 = min(int(np.floor((x + rad - g[0]) / g[2])), nx - 1)
        j0 = max(int(np.floor((y - rad - g[1]) / g[2])), 0)
        j1 = min(int(np.floor((y + rad - g[1]) / g[2])), ny - 1)
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                b = i + j * nx
                for q in range(start[b], start[b + 1]):
                    if _triangle_hits(tris[items[q]], x, y, z + climb, z + height, rad, p0, p1,
                                      p2):
                        return k
    return -1


class Model:
    """The documented trajectory model, from settings (world units)."""

    def __init__(self, s: dict):
        self.cs = s["cell_size"]
        # measured on the triangles, not voxel-rounded; a rise of exactly the climb is a
        # step (documented), so heights within CLIMB_TIE of it count as within climb
        self.climb = s["agent_max_climb"] + CLIMB_TIE
        self.radius = max(s["agent_radius"] - RADIUS_TOLERANCE, 0.0)
        self.height = s["stand_height"] if s["multi_stance"] else s["agent_height"]
        self.g = s["gravity"]
        self.jump_h = s["max_jump_height"]
        self.dist = s["max_jump_distance"]
        self.drop = s["max_drop_height"]
        vz = math.sqrt(2 * self.g * self.jump_h)
        self.vx_max = self.g * self.dist / (2 * vz) if vz > 0 else math.inf
        self.run_max = s["agent_radius"] + 3 * self.cs
        self.step = self.cs  # ground profile step
        self.slope_cos = math.cos(math.radians(s["agent_max_slope"]))
        # documented: a link's end heights lie within two cell heights of the ground
        self.height_tol = HEIGHT_TOLERANCE_CELLS * s["cell_height"]

    def kind(self, dz):
        return 0 if dz < -self.climb else (1 if dz <= self.climb else 2)


def _ground_height(m, geo, p, z):
    """The walkable ground under p closest to height z within climb, NaN when none."""
    tris, up, start, items, g = geo
    return _ground_z(float(p[0]), float(p[1]), float(z), m.climb, tris, up, start, items, g)


def _support(m, geo, p, z):
    return not math.isnan(_ground_height(m, geo, p, z))


def trajectory(m: Model, geo, p0, p1, kind, apex):
    """Feet positions along the documented trajectory from p0 to p1, or a problem string."""
    d = p1[:2] - p0[:2]
    dist = float(np.hypot(*d))
    if dist <= 1e-9:
        return "start and end at the same place"
    u = d / dist
    z0, z1 = float(p0[2]), float(p1[2])

    def at(s):
        return p0[:2] + u * s

    if kind == 2:
        s_t = 0.0
    else:
        if not _support(m, geo, at(0.0), z0):
            return "no ground at the take-off point"
        s_t = None
        j = 1
        while j * m.step <= min(m.run_max, dist) + m.step:
            s = j * m.step
            if not _support(m, geo, at(s), z0):
                lo, hi = s - m.step, s
                for _ in range(BISECT):
                    mid = 0.5 * (lo + hi)
                    if _support(m, geo, at(mid), z0):
                        lo = mid
                    else:
                        hi = mid
                s_t = lo
                break
            j += 1
        if s_t is None or s_t > min(m.run_max, dist) or s_t >= dist:
            return "no ledge to take off from within reach of the start"
    if kind == 0:
        s_l = dist
    else:
        if not _support(m, geo, at(dist), z1):
            return "no ground at the landing point"
        s_l = None
        j = 1
        while True:
            s = dist - j * m.step
            if s <= s_t:
                s_l = s_t
                break
            if not _support(m, geo, at(s), z1):
                lo, hi = s, s + m.step
                for _ in range(BISECT):
                    mid = 0.5 * (lo + hi)
                    if _support(m, geo, at(mid), z1):
                        hi = mid
                    else:
                        lo = mid
                s_l = hi
                break
            j += 1
        if dist - s_l > m.run_max + 1e-9:
            return f"run-out {dist - s_l:.2f} m is longer than allowed"
    d_air = s_l - s_t
    dz = z1 - z0
    if apex > 0:
        vz = math.sqrt(2 * m.g * apex)
        disc = vz * vz - 2 * m.g * dz
        if dz > apex + 1e-9:
            return "the landing is above the apex"
        disc = max(disc, 0.0)  # landing at the apex itself: rounding must not decide
        t_f = (vz + math.sqrt(disc)) / m.g
    else:
        if dz >= 0:
            return "walk-off that does not go down"
        vz = 0.0
        t_f = math.sqrt(-2 * dz / m.g)
    if d_air > m.dist + 1e-6:
        return f"airborne distance {d_air:.3f} m > max_jump_distance"
    vx = d_air / t_f
    if vx > m.vx_max * (1 + 1e-6):
        return f"horizontal speed {vx:.3f} m/s > take-off speed {m.vx_max:.3f} m/s"
    pts = []
    n = max(1, int(math.ceil(s_t / PATH_STEP)))
    for i in range(n + 1):
        s = s_t * i / n
        pts.append((*at(s), z0))
    arc = d_air + 2 * vz * vz / (2 * m.g) + abs(dz)
    n = max(1, int(math.ceil(arc / PATH_STEP)))
    for i in range(n + 1):
        tau = t_f * i / n
        q = at(s_t + vx * tau)
        pts.append((q[0], q[1], z0 + vz * tau - 0.5 * m.g * tau * tau))
    n = max(1, int(math.ceil((dist - s_l) / PATH_STEP)))
    for i in range(n + 1):
        s = s_l + (dist - s_l) * i / n
        pts.append((*at(s), z1))
    return np.array(pts)


def _inside_polygon(nm, p, xy, tol=1e-4):
    pts = nm.polygon_vertices(int(p))
    n = len(pts)
    for i in range(n):
        a, b = pts[i], pts[(i + 1) % n]
        ln = math.hypot(b[0] - a[0], b[1] - a[1])
        if (b[0] - a[0]) * (xy[1] - a[1]) - (b[1] - a[1]) * (xy[0] - a[0]) < -tol * max(ln, 1):
            return False
    return True


def check_links(nm, vertices, triangles, settings) -> list[str]:
    """Problems with the links of ``nm`` (empty list: every link is valid)."""
    s = settings if isinstance(settings, dict) else settings.to_dict()
    m = Model(s)
    v = np.asarray(vertices, np.float64)
    tri_all = v[np.asarray(triangles, np.int64)]
    nrm = np.cross(tri_all[:, 1] - tri_all[:, 0], tri_all[:, 2] - tri_all[:, 0])
    ln = np.linalg.norm(nrm, axis=1)
    up_all = (ln > 0) & (nrm[:, 2] > m.slope_cos * np.where(ln > 0, ln, 1))
    geo = (np.ascontiguousarray(tri_all), up_all, *_triangle_grid(tri_all))
    tris, _up, start_b, items_b, grid = geo

    def hit(path):
        return _path_hit(np.asarray(path, np.float64).reshape(-1, 3), m.climb, m.height,
                         m.radius, tris, start_b, items_b, grid)

    problems = []
    for i in range(nm.link_count):
        start, end = nm.link_start[i], nm.link_end[i]
        kind = int(nm.link_kind[i])
        apex = float(nm.link_apex[i])
        tag = f"link {i} ({['drop', 'jump_across', 'jump_up'][kind]})"
        if not (apex == 0.0 or abs(apex - m.jump_h) < 1e-9):
            problems.append(f"{tag}: apex {apex} is neither 0 nor max_jump_height")
            continue
        if nm.link_start_poly[i] == nm.link_end_poly[i]:
            problems.append(f"{tag}: starts and ends on the same polygon")
        for name, seg, poly in (("start", start, nm.link_start_poly[i]),
                                ("end", end, nm.link_end_poly[i])):
            if poly < 0 or not _inside_polygon(nm, poly, seg.mean(axis=0)):
                problems.append(f"{tag}: {name} polygon {poly} does not hold the "
                                f"{name} segment's midpoint")
        width = float(np.linalg.norm(start[1] - start[0]))
        n = max(1, int(math.ceil(width / (m.cs / 2) - 1e-9)))
        dirs = [(start, end, kind)]
        if nm.link_bidirectional[i]:
            dirs.append((end, start, None))
        for a_seg, b_seg, k in dirs:
            for j in range(n + 1):
                f = j / n
                p0 = a_seg[0] + f * (a_seg[1] - a_seg[0])
                p1 = b_seg[0] + f * (b_seg[1] - b_seg[0])
                where = f"{tag} at {f:.2f}" + (" (reverse)" if k is None else "")
                dz = p1[2] - p0[2]
                kk = m.kind(dz) if k is None else k
                if m.kind(dz) != kk:
                    problems.append(f"{where}: height change {dz:.2f} m is not a "
                                    f"{['drop', 'jump across', 'jump up'][kk]}")
                    break
                if kk == 0 and -dz > m.drop + 1e-9:
                    problems.append(f"{where}: drop of {-dz:.2f} m > max_drop_height")
                    break
                if kk != 0 and dz > m.jump_h + 1e-9:
                    problems.append(f"{where}: jump of {dz:.2f} m > max_jump_height")
                    break
                # the same on the ground under both ends (the ends may lie up to climb
                # off it): the step the agent really takes
                g0 = _ground_height(m, geo, p0[:2], p0[2])
                g1 = _ground_height(m, geo, p1[:2], p1[2])
                if not (math.isnan(g0) or math.isnan(g1)):
                    off = max(abs(g0 - p0[2]), abs(g1 - p1[2]))
                    if off > m.height_tol + 1e-9:
                        problems.append(f"{where}: an end lies {off:.2f} m off the ground "
                                        f"under it (more than {m.height_tol:.2f} m)")
                        break
                    gz = g1 - g0
                    if m.kind(gz) != kk:
                        problems.append(f"{where}: on the ground the height change is "
                                        f"{gz:.2f} m, not a "
                                        f"{['drop', 'jump across', 'jump up'][kk]}")
                        break
                    if (kk == 0 and -gz > m.drop + 1e-9) or (kk != 0 and gz > m.jump_h + 1e-9):
                        problems.append(f"{where}: on the ground the height change "
                                        f"{gz:.2f} m is beyond its limit")
                        break
                bad = None
                for name, p in (("start", p0), ("end", p1)):
                    if not _support(m, geo, p[:2], p[2]):
                        bad = f"{name} has no walkable ground within climb"
                        break
                    if hit(p) >= 0:
                        bad = f"{name} has no stand clearance"
                        break
                if bad is None:
                    path = trajectory(m, geo, p0, p1, kk, apex)
                    if isinstance(path, str):
                        bad = path
                    elif (h := hit(path)) >= 0:
                        q = path[h]
                        bad = f"the agent hits geometry at ({q[0]:.2f}, {q[1]:.2f}, {q[2]:.2f})"
                if bad is not None:
                    problems.append(f"{where}: {bad}")
                    break
    return problems
