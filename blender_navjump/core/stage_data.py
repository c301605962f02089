"""Intermediate bake data, passed from stage to stage as plain numpy arrays.

Frame: Z up. The voxel grid spans x (``width`` cells) and y (``height`` cells); span
heights are integer voxel levels along z. Cell (x, y) covers world
``[bmin.x + x*cs, bmin.x + (x+1)*cs) x [bmin.y + y*cs, ...)``; voxel level k is the world
height ``bmin.z + k*ch``.

Neighbour directions (as in Recast, with Recast's z replaced by our y):
``DIR_DX = (-1, 0, 1, 0)``, ``DIR_DY = (0, 1, 0, -1)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DIR_DX = np.array([-1, 0, 1, 0], dtype=np.int32)
DIR_DY = np.array([0, 1, 0, -1], dtype=np.int32)

# Region ids: 0 = none. Contour vertex flags in the 4th column of contour vertices.
BORDER_VERTEX = 0x10000  # vertex on the outer border of the grid (unused in solo bakes)
AREA_BORDER = 0x20000  # vertex where the area (stance) changes
CONTOUR_REG_MASK = 0xFFFF
# Clearance stored when nothing is above a span.
OPEN_SKY = 0xFFFF


@dataclass
class Heightfield:
    """Solid span heightfield: per column a linked list of solid spans, bottom to top.

    ``column_head[x + y*width]`` is the first span index or -1; ``span_next`` chains spans.
    ``span_min``/``span_max`` are voxel levels (solid from min to max); ``span_area`` is the
    area id of the span's top surface (0 = not walkable, >0 walkable).
    """

    width: int
    height: int
    bmin: np.ndarray
    cs: float
    ch: float
    column_head: np.ndarray  # (w*h,) int32
    span_min: np.ndarray  # (S,) int32
    span_max: np.ndarray  # (S,) int32
    span_area: np.ndarray  # (S,) uint8
    span_next: np.ndarray  # (S,) int32


@dataclass
class CompactHeightfield:
    """Open spans (walkable floors) with clearance and neighbour links.

    Spans of column c are ``cell_index[c] : cell_index[c] + cell_count[c]``, bottom to top.
    ``span_y`` is the floor level (top of the solid below), ``span_h`` the free height above
    it in voxels (``OPEN_SKY`` if unbounded). ``span_con[s, d]`` is the index of the
    connected neighbour span in direction d, or -1. ``span_area`` 0 means not walkable
    (e.g. eroded); otherwise an area id (see ``navmesh.AREA_*``).
    """

    width: int
    height: int
    bmin: np.ndarray
    cs: float
    ch: float
    walkable_height: int
    walkable_climb: int
    cell_index: np.ndarray  # (w*h,) int32
    cell_count: np.ndarray  # (w*h,) int32
    span_y: np.ndarray  # (N,) int32
    span_h: np.ndarray  # (N,) int32
    span_area: np.ndarray  # (N,) uint8
    span_con: np.ndarray  # (N, 4) int32
    span_x: np.ndarray  # (N,) int32 cell x of each span (convenience for kernels)
    span_cy: np.ndarray  # (N,) int32 cell y of each span
    span_reg: np.ndarray | None = None  # (N,) int32 region id, 0 = none
    span_dist: np.ndarray | None = None  # (N,) uint16 distance field
    max_region: int = 0


@dataclass
class ContourSet:
    """Simplified region outlines.

    Contour i's vertices are ``verts[start[i] : start[i+1]]``, rows (x, y, z, flags): grid
    x and y at cell corners, voxel level z, and flags whose low 16 bits are the region id
    on the other side of the edge starting at this vertex (0 = border), plus
    ``AREA_BORDER``/``BORDER_VERTEX`` bits. Winding: counter-clockwise seen from +Z when
    walking the outline with the region on the left.
    """

    verts: np.ndarray  # (K, 4) int32
    start: np.ndarray  # (C+1,) int32
    reg: np.ndarray  # (C,) int32
    area: np.ndarray  # (C,) uint8
    raw_verts: np.ndarray  # (Kr, 4) int32, unsimplified
    raw_start: np.ndarray  # (C+1,) int32


@dataclass
class PolyMesh:
    """Convex polygons in voxel coordinates (grid x, grid y, voxel level z)."""

    verts: np.ndarray  # (V, 3) int32
    polys: np.ndarray  # (P, nvp) int32, -1 padded, CCW from +Z
    neighbours: np.ndarray  # (P, nvp) int32, -1 = none
    regs: np.ndarray  # (P,) int32
    areas: np.ndarray  # (P,) uint8
    nvp: int
    bmin: np.ndarray
    cs: float
    ch: float
