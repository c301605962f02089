"""The column-wise flight test (``links_model.arc_blocked``) against a brute-force sweep.

The reference samples the flight every millimetre of its horizontal travel and, at each
position, tests the widened cylinder against every column exactly (rectangle to segment
distance, feet height of that instant). arc_blocked must be blocked whenever the reference
is (never misses a contact), and must be clear when even a body 2 mm larger (radius and
height range) is clear in the reference (no needless refusals beyond that tolerance).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from blender_navjump.core.links_model import (
    N_PARAMS,
    P_BX,
    P_BY,
    P_BZ,
    P_CH,
    P_CLIMB,
    P_CS,
    P_G,
    P_HH,
    P_LAT,
    P_RC,
    P_SWEEP,
    P_TOP,
    P_W,
    _seg_rect_dist2,
    arc_blocked,
)

CS, CH, W, H = 0.3, 0.2, 24, 24


def _params(radius, lat):
    prm = np.zeros(N_PARAMS)
    prm[P_CS], prm[P_CH] = CS, CH
    prm[P_BX] = prm[P_BY] = prm[P_BZ] = 0.0
    prm[P_RC], prm[P_CLIMB], prm[P_TOP] = radius, 0.4, 2.0
    prm[P_G], prm[P_LAT], prm[P_SWEEP] = 9.81, lat, 0.5 * CS
    prm[P_W], prm[P_HH] = W, H
    return prm


def _heightfield(rng, n_pillars):
    """Solid spans (one per column at most, in levels) in a W x H grid: a floor at level
    0..5 everywhere, pillars and floating blocks in a few columns."""
    n = W * H
    lo = np.zeros(n, np.int32)
    hi = np.full(n, 5, np.int32)
    cols = rng.choice(n, n_pillars, replace=False)
    lo[cols] = rng.integers(0, 30, n_pillars)
    hi[cols] = lo[cols] + rng.integers(1, 20, n_pillars)
    head = np.arange(n, dtype=np.int32)
    vox = (head, lo.astype(np.int32), hi.astype(np.int32), np.full(n, -1, np.int32),
           np.zeros(n, np.int32))
    return vox, lo, hi


def _reference(tx, ty, z0, ux, uy, vx, vz, t_f, ex, ey, prm, lo, hi, shrink):
    r = prm[P_RC] - shrink
    lat = prm[P_LAT]
    g = prm[P_G]
    steps = max(2, int(math.ceil(vx * t_f / 0.001)))
    for i in range(steps + 1):
        tau = t_f * i / steps
        s = vx * tau
        cx, cy = tx + ux * s, ty + uy * s
        z = z0 + vz * tau - 0.5 * g * tau * tau
        zlo = (z + prm[P_CLIMB] + shrink) / CH
        zhi = (z + prm[P_TOP] - shrink) / CH
        for c in range(W * H):
            if not (hi[c] > zlo and lo[c] < zhi):
                continue
            x0, y0 = (c % W) * CS, (c // W) * CS
            d2 = _seg_rect_dist2(cx - lat * ex, cy - lat * ey, cx + lat * ex, cy + lat * ey,
                                 x0, y0, x0 + CS, y0 + CS)
            if d2 < r * r:
                return True
    return False


@pytest.mark.parametrize("seed", range(12))
def test_arc_blocked_matches_a_dense_sweep(seed):
    rng = np.random.default_rng(seed)
    vox, lo, hi = _heightfield(rng, 40)
    prm = _params(radius=rng.uniform(0.2, 0.6), lat=rng.uniform(0.0, 0.2))
    checked = blocked_seen = 0
    for _ in range(25):
        tx, ty = rng.uniform(1.5, 5.5, 2)
        z0 = 1.0
        ang = rng.uniform(0, 2 * math.pi)
        ux, uy = math.cos(ang), math.sin(ang)
        side = ang + math.pi / 2 + rng.uniform(-0.5, 0.5)  # lateral not always square
        ex, ey = math.cos(side), math.sin(side)
        vz = rng.choice([0.0, 4.43])
        t_f = rng.uniform(0.2, 0.8)
        vx = rng.uniform(0.0, 2.5) if rng.random() > 0.1 else 0.0
        args = (tx, ty, z0, ux, uy, vx, vz, t_f, ex, ey)
        got, _ = arc_blocked(*args, prm, vox)
        if _reference(*args, prm, lo, hi, shrink=0.0):
            assert got, f"missed a contact: {args}"
            checked += 1
        elif not _reference(*args, prm, lo, hi, shrink=-0.002):
            # clear even for a body 2 mm larger: arc_blocked must be clear too
            assert not got, f"refused a clear flight: {args}"
            checked += 1
        blocked_seen += got
    assert checked >= 20  # borderline flights (neither branch) are few: the test checks
    assert 0 < blocked_seen < 25  # the scene exercises both outcomes


def test_arc_length_is_the_polyline_of_the_parabola():
    prm = _params(radius=0.3, lat=0.0)
    n = W * H
    empty = (np.full(n, -1, np.int32), np.zeros(0, np.int32), np.zeros(0, np.int32),
             np.zeros(0, np.int32), np.zeros(n, np.int32))
    vx, vz, t_f = 2.0, 4.43, 0.9
    blocked, length = arc_blocked(1.0, 1.0, 0.0, 1.0, 0.0, vx, vz, t_f, 0.0, 1.0, prm, empty)
    assert not blocked
    ts = np.linspace(0.0, t_f, 20001)
    x = vx * ts
    z = vz * ts - 0.5 * 9.81 * ts * ts
    exact = float(np.sum(np.hypot(np.diff(x), np.diff(z))))
    assert length == pytest.approx(exact, rel=0.01)
