"""A small scene that makes a bake run every kernel: floors at three heights (jump up,
drop), a gap (jump across), a low slab (crouch and prone layers), a ramp, stairs and a
pillar (a hole, so contours have an inner ring), and climb elements on the high block (a
ladder, a pipe and a ledge: :func:`warmup_climb_items`). Z up, metres; numpy only."""

from __future__ import annotations

import numpy as np


def _box(verts, tris, x0, y0, z0, x1, y1, z1):
    base = len(verts)
    verts += [(x, y, z) for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)]
    # corners: index = (z << 2) | (y << 1) | x
    faces = ((4, 5, 7, 6), (0, 2, 3, 1), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2),
             (1, 3, 7, 5))
    for a, b, c, d in faces:
        tris += [(base + a, base + b, base + c), (base + a, base + c, base + d)]


def warmup_scene() -> tuple[np.ndarray, np.ndarray]:
    """(vertices float64 (N, 3), triangles int32 (M, 3))."""
    verts: list = []
    tris: list = []
    _box(verts, tris, 0, 0, -0.2, 12, 10, 0.0)        # main floor
    _box(verts, tris, 4, 4, 0.0, 5, 5, 2.5)           # pillar
    _box(verts, tris, 0, 7, 1.3, 5, 10, 1.5)          # low slab: crouch under it
    _box(verts, tris, 7, 7, 0.0, 12, 10, 0.4)         # prone slot under the next slab
    _box(verts, tris, 7, 7, 1.0, 12, 10, 1.2)
    _box(verts, tris, 14, 0, -0.2, 20, 10, 0.0)       # across a 2 m gap
    _box(verts, tris, 14, 0, 0.0, 17, 4, 0.9)         # a step up to jump onto
    _box(verts, tris, 8, 0, 0.0, 12, 3, 3.0)          # a high block to drop from
    for i in range(4):                                # stairs
        _box(verts, tris, 1 + 0.4 * i, 1, 0.0, 1.4 + 0.4 * i, 3, 0.2 * (i + 1))
    base = len(verts)                                 # a ramp
    verts += [(17, 5, 0.0), (20, 5, 1.2), (20, 8, 1.2), (17, 8, 0.0)]
    tris += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
    return np.array(verts, np.float64), np.array(tris, np.int32)


def warmup_climb_items() -> list:
    """Climb items ``(name, kind, points)`` on the scene's 3 m block (x 8..12, y 0..3): a
    ladder on its west face, on its north face a pipe and a ledge along the top edge, and a
    ledge along the west face's top edge (a corner with the north one) (kinds as in
    ``core.kinds``: 0 ledge, 1 ladder, 2 pipe)."""
    return [("warmup-ladder", 1, np.array([[7.7, 1.0, 0.0], [7.95, 1.5, 3.0]])),
            ("warmup-pipe", 2, np.array([[9.5, 3.05, 0.2], [9.65, 3.2, 2.9]])),
            ("warmup-ledge", 0, np.array([[8.5, 3.0, 3.0], [11.5, 3.0, 3.0]])),
            ("warmup-west-ledge", 0, np.array([[8.0, 1.8, 3.0], [8.0, 2.6, 3.0]]))]
