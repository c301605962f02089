"""Procedural test scenes with analytic truth. Z up, metres. Each returns (vertices, triangles)."""

from __future__ import annotations

import math

import numpy as np


class Scene:
    """Accumulates triangles; ``arrays()`` gives (float64 (N,3), int32 (M,3))."""

    def __init__(self):
        self.verts: list[tuple[float, float, float]] = []
        self.tris: list[tuple[int, int, int]] = []

    def quad(self, a, b, c, d):
        """Quad a-b-c-d; counter-clockwise seen from the side its normal points to."""
        base = len(self.verts)
        self.verts += [tuple(map(float, p)) for p in (a, b, c, d)]
        self.tris += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
        return self

    def floor(self, x0, y0, x1, y1, z=0.0):
        """Horizontal rectangle facing up."""
        return self.quad((x0, y0, z), (x1, y0, z), (x1, y1, z), (x0, y1, z))

    def ceiling(self, x0, y0, x1, y1, z):
        """Horizontal rectangle facing down."""
        return self.quad((x0, y0, z), (x0, y1, z), (x1, y1, z), (x1, y0, z))

    def box(self, x0, y0, z0, x1, y1, z1):
        """Closed axis-aligned box, outward normals."""
        self.floor(x0, y0, x1, y1, z1)  # top
        self.ceiling(x0, y0, x1, y1, z0)  # bottom
        self.quad((x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1))  # -y
        self.quad((x1, y1, z0), (x0, y1, z0), (x0, y1, z1), (x1, y1, z1))  # +y
        self.quad((x0, y1, z0), (x0, y0, z0), (x0, y0, z1), (x0, y1, z1))  # -x
        self.quad((x1, y0, z0), (x1, y1, z0), (x1, y1, z1), (x1, y0, z1))  # +x
        return self

    def ramp(self, x0, y0, x1, y1, z0, angle_deg):
        """Plane rising along +x from z0 at x0 with the given slope."""
        z1 = z0 + (x1 - x0) * math.tan(math.radians(angle_deg))
        return self.quad((x0, y0, z0), (x1, y0, z1), (x1, y1, z1), (x0, y1, z0))

    def stairs(self, x0, y0, y1, z0, step_height, step_depth, n):
        """n solid steps rising along +x."""
        for i in range(n):
            self.box(x0 + i * step_depth, y0, z0 - 0.5, x0 + (i + 1) * step_depth, y1,
                     z0 + (i + 1) * step_height)
        return self

    def add(self, other: Scene):
        base = len(self.verts)
        self.verts += other.verts
        self.tris += [(a + base, b + base, c + base) for a, b, c in other.tris]
        return self

    def arrays(self):
        return (np.array(self.verts, dtype=np.float64).reshape(-1, 3),
                np.array(self.tris, dtype=np.int32).reshape(-1, 3))


def flat_floor(size=10.0, z=0.0):
    return Scene().floor(0, 0, size, size, z).arrays()


def self_stacked_region_scene():
    """The fuzz audit's scene whose monotone regions stack on themselves in a column (it
    crashed the region merge with 'Set changed size during iteration'): vertices,
    triangles, settings."""
    from blender_navjump.core import BakeSettings

    v = np.array([[17.9, -12.5, 7.7], [0, 9, 10], [-19.8, 9, 11.1], [11.2, -1.9, 10],
                  [5.3, -14.2, 8], [-10.7, 3.8, 13.6], [-15.9, 9, 16.1], [0, -19, -1.1],
                  [12.5, 0, 10]])
    t = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    return v, t, BakeSettings(partition="monotone", multi_stance=True, agent_radius=0,
                              agent_max_climb=2, stand_height=2.4, crouch_enabled=False)
