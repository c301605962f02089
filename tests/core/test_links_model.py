"""The flight test on the triangles (``links_model.tri_arc_blocked``) against a dense sweep.

The reference (the link oracle's own cylinder-triangle test, written independently)
samples the flight every 2 mm of its travel and tests the cylinder at each instant against
every triangle. tri_arc_blocked must be blocked whenever the reference is (it never misses a
contact), and clear whenever a body larger by the documented tolerance (TRI_SWEEP: radius
and height range) is clear in the reference (no needless refusals beyond that).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from link_oracle import _triangle_hits
from numba import njit

from blender_navjump.core.kinds import LINK_DROP, LINK_JUMP_ACROSS, LINK_JUMP_UP
from blender_navjump.core.links_geom import make_grid, triangle_index
from blender_navjump.core.links_model import (
    LAND_MAX_ANGLE,
    TRI_SWEEP,
    arc_length,
    ground_begins,
    kind_of,
    lands_squarely,
    new_scratch,
    tri_arc_blocked,
)
from blender_navjump.core.settings import CLIMB_TIE, BakeSettings, LinkParams, voxel_config

CLIMB, TOP = 0.4, 2.0


def _params(radius):
    values = dict.fromkeys(LinkParams._fields, 0.0)
    values.update(body_radius=radius, climb=CLIMB, top=TOP, gravity=9.81, lateral=0.0,
                  arc_step=0.15)
    return LinkParams(**values)


def _box(v, t, lo, hi):
    """A closed box as 12 triangles (outward faces)."""
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    b = len(v)
    v += [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
          (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    for q in ((0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6),
              (3, 0, 4, 7)):
        t += [(b + q[0], b + q[1], b + q[2]), (b + q[0], b + q[2], b + q[3])]


def _scene(rng):
    """A floor, pillars, floating blocks and slanted slabs in an 8 m square."""
    v, t = [], []
    _box(v, t, (0, 0, -1), (8, 8, 0))
    for _ in range(14):
        x, y = rng.uniform(0.5, 7.5, 2)
        sx, sy = rng.uniform(0.05, 0.8, 2)
        z0 = rng.uniform(0.0, 3.0) if rng.random() < 0.5 else 0.0
        _box(v, t, (x, y, z0), (x + sx, y + sy, z0 + rng.uniform(0.1, 2.5)))
    verts = np.array(v, np.float64)
    # turn each box a little about z (slanted walls), keeping the floor
    ang = rng.uniform(0, 2 * math.pi)
    c, s = math.cos(ang), math.sin(ang)
    xy = verts[8:, :2] - 4.0
    verts[8:, 0] = c * xy[:, 0] - s * xy[:, 1] + 4.0
    verts[8:, 1] = s * xy[:, 0] + c * xy[:, 1] + 4.0
    return verts, np.array(t, np.int32)


@njit(cache=True)
def _reference(tx, ty, z0, ux, uy, vx, vz, t_f, tris, radius, grow):
    p0, p1, p2 = np.empty((8, 3)), np.empty((8, 3)), np.empty((8, 3))
    steps = max(2, int(math.ceil(max(vx * t_f, 1e-3) / 0.002)))
    for i in range(steps + 1):
        tau = t_f * i / steps
        s = vx * tau
        z = z0 + vz * tau - 0.5 * 9.81 * tau * tau
        for k in range(tris.shape[0]):
            if _triangle_hits(tris[k], tx + ux * s, ty + uy * s, z + CLIMB - grow, z + TOP + grow,
                              radius + grow, p0, p1, p2):
                return True
    return False


@pytest.mark.parametrize("seed", range(6))
def test_tri_arc_blocked_matches_a_dense_sweep(seed):
    rng = np.random.default_rng(seed)
    v, t = _scene(rng)
    ti = triangle_index(v, t, 0.7, make_grid((-1.0, -1.0), (9.0, 9.0), 0.6))
    tris = np.ascontiguousarray(v[t])
    radius = rng.uniform(0.2, 0.5)
    prm = _params(radius)
    checked = blocked_seen = 0
    for _ in range(20):
        tx, ty = rng.uniform(2.0, 6.0, 2)
        ang = rng.uniform(0, 2 * math.pi)
        ux, uy = math.cos(ang), math.sin(ang)
        vz = rng.choice([0.0, 4.43])
        t_f = rng.uniform(0.2, 0.8)
        vx = rng.uniform(0.1, 2.5)
        z0 = rng.uniform(0.0, 1.0)
        got = tri_arc_blocked(tx, ty, z0, ux, uy, vx, vz, t_f, -uy, ux, prm, ti, new_scratch())
        args = (tx, ty, z0, ux, uy, vx, vz, t_f)
        if _reference(*args, tris, radius, 0.0):
            assert got, f"missed a contact: {args}"
            checked += 1
        elif not _reference(*args, tris, radius, TRI_SWEEP):
            assert not got, f"refused a clear flight: {args}"
            checked += 1
        blocked_seen += got
    assert checked >= 12  # borderline flights (neither branch) are few: the test checks
    assert 0 < blocked_seen < 20  # the scene exercises both outcomes


def test_arc_length_is_the_polyline_of_the_parabola():
    prm = _params(radius=0.3)
    vx, vz, t_f = 2.0, 4.43, 0.9
    length = arc_length(0.0, vx, vz, t_f, prm)
    ts = np.linspace(0.0, t_f, 20001)
    x = vx * ts
    z = vz * ts - 0.5 * 9.81 * ts * ts
    exact = float(np.sum(np.hypot(np.diff(x), np.diff(z))))
    assert length == pytest.approx(exact, rel=0.01)


def test_link_kinds_use_agent_max_climb_not_the_voxel_climb():
    # agent_max_climb 0.9 m at 0.2 m cells: the navmesh climbs 4 cells (0.8 m), the links
    # judge kinds and ground on the triangles against 0.9 m (issue 18): a rise of 0.85 m
    # is a step, not a jump up, whatever the grid's offset
    stg = BakeSettings(links_enabled=True, agent_max_climb=0.9, cell_height=0.2)
    cfg = voxel_config(stg, np.zeros(3), np.array([10.0, 10.0, 3.0]))
    prm = cfg.links
    assert cfg.walkable_climb == 4 and prm.voxel_climb == pytest.approx(0.8)
    assert prm.climb == 0.9 + CLIMB_TIE
    assert kind_of(0.85, prm.climb) == LINK_JUMP_ACROSS
    # a rise of exactly the climb, as rounding leaves it from heights on its multiples,
    # is a step either way
    assert (0.1 + 0.2) * 3.0 > 0.9  # 0.9000000000000001
    assert kind_of((0.1 + 0.2) * 3.0, prm.climb) == LINK_JUMP_ACROSS
    assert kind_of(-(0.1 + 0.2) * 3.0, prm.climb) == LINK_JUMP_ACROSS
    assert kind_of(-0.85, prm.climb) == LINK_JUMP_ACROSS
    assert kind_of(0.92, prm.climb) == LINK_JUMP_UP
    assert kind_of(-0.92, prm.climb) == LINK_DROP


@pytest.mark.parametrize("turn", [0.0, 7.0, 33.0, 61.5, 137.0, 250.25])
def test_lands_squarely_measures_the_real_landing_edge(turn):
    # a landing platform whose edge runs at `turn` degrees: a jump landing within
    # LAND_MAX_ANGLE of the edge's normal passes, beyond it fails, whatever the edge's
    # direction (the navmesh border's inset and lean play no part)
    assert LAND_MAX_ANGLE == 45.0
    v, t = [], []
    _box(v, t, (0, -6, -1), (6, 6, 0))
    verts = np.array(v, np.float64)
    a = math.radians(turn)
    c, s = math.cos(a), math.sin(a)
    x, y = verts[:, 0].copy(), verts[:, 1].copy()
    verts[:, 0], verts[:, 1] = c * x - s * y, s * x + c * y
    ti = triangle_index(verts, np.array(t, np.int32), 0.7, make_grid((-9.0, -9.0), (9.0, 9.0),
                                                                      0.6))
    values = dict.fromkeys(LinkParams._fields, 0.0)
    values.update(cs=0.3, ch=0.2, climb=CLIMB, profile_step=0.3, run_max=1.5, march_max=9.0)
    prm = LinkParams(**values)
    nx, ny = c, s  # the landing edge's normal into the platform (the edge is x = 0)
    for off_normal, expected in ((0.0, True), (20.0, True), (-43.0, True), (47.5, False),
                                 (-50.0, False), (60.0, False)):
        b = math.radians(off_normal)
        ux, uy = nx * math.cos(b) - ny * math.sin(b), nx * math.sin(b) + ny * math.cos(b)
        for along in (-2.0, 0.0, 2.0):  # take-off points a metre before the edge
            px, py = -1.0, along
            x0, y0 = c * px - s * py, s * px + c * py
            dist = 1.5 / math.cos(b)  # P1 half a metre inside the edge
            s_l = ground_begins(x0, y0, ux, uy, dist, 0.0, 0.0, prm.march_max, prm, ti)
            assert s_l == pytest.approx(1.0 / math.cos(b), abs=0.01)
            got = lands_squarely(x0, y0, ux, uy, dist, 0.0, 0.0, s_l, prm, ti)
            assert got == expected, (turn, off_normal, along)
