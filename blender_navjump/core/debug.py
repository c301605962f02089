"""Debug data of a bake, on request: why a place is (not) walkable.

``bake(..., debug=BakeDebug())`` fills the given :class:`BakeDebug` with compact arrays,
in world units (metres, Z up), taken from the pipeline's intermediate data:

* ``spans``: one row per voxel top (``VOXEL_TOP`` structured array): every top of the
  solid heightfield after the filters, with the cell centre ``x``, ``y``, the top's height
  ``z``, its ``area`` after the stance pass and erosion (0 = not walkable, else
  ``AREA_STAND``/``AREA_CROUCH``/``AREA_PRONE``, i.e. stance + 1) and its ``region`` (0 =
  none). Tops of the solid that are not walkable (steep, obstacles, filtered ledges, too
  low) and walkable floors taken away by erosion both come with area 0.
* contours: the simplified region outlines, ``contour_points[contour_start[i]:
  contour_start[i + 1]]`` for contour i (a closed loop), of region ``contour_region[i]``.
* ``link_rejects`` (with ``links_enabled``): link candidates the link generator refused,
  one row each (``LINK_REJECT``): the take-off point on the navmesh border, the candidate
  landing, the kind tried (-1: none), the ``reason`` (``REJECT_REASONS``: too high, too
  far, blocked, too narrow, no landing) and, for a blocked one, the point where the body
  first meets the level (NaN otherwise). Per border sample and kind the first refusal
  seen (along the edge normal first, nearest first); nothing is recorded (no cost) when
  no debug data is asked for.

Nothing here is written to navmesh files; the Blender overlay stores it beside the result
when asked (the "Debug Data" bake setting) and draws it as debug layers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .stage_data import CompactHeightfield, ContourSet, Heightfield

VOXEL_TOP = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32),
                      ("area", np.uint8), ("region", np.int32)])

# Why a link candidate was refused (``LINK_REJECT["reason"]``): a landing higher (a drop
# deeper) than the limits; a flight longer than max_jump_distance (or faster than the jump
# allows); the body meets the level (at ``bx, by, bz``); the run of samples with this
# landing is narrower than min_link_width; a border sample with no landing candidate at all.
REJECT_REASONS = ("none", "too_high", "too_far", "blocked", "too_narrow", "no_landing")
REJECT_NONE, REJECT_TOO_HIGH, REJECT_TOO_FAR, REJECT_BLOCKED, REJECT_TOO_NARROW, \
    REJECT_NO_LANDING = range(len(REJECT_REASONS))
LINK_REJECT = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32),
                        ("tx", np.float32), ("ty", np.float32), ("tz", np.float32),
                        ("bx", np.float32), ("by", np.float32), ("bz", np.float32),
                        ("kind", np.int8), ("reason", np.uint8)])


@dataclass
class BakeDebug:
    cell_size: float = 0.0
    cell_height: float = 0.0
    spans: np.ndarray = field(default_factory=lambda: np.zeros(0, VOXEL_TOP))
    contour_points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.float64))
    contour_start: np.ndarray = field(default_factory=lambda: np.zeros(1, np.int64))
    contour_region: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    link_rejects: np.ndarray = field(default_factory=lambda: np.zeros(0, LINK_REJECT))

    ARRAYS = ("spans", "contour_points", "contour_start", "contour_region", "link_rejects")
    OPTIONAL = frozenset({"link_rejects"})  # absent from debug data stored before it

    @property
    def contour_count(self) -> int:
        return int(self.contour_region.shape[0])

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Everything as named arrays (for ``np.savez``)."""
        out = {name: getattr(self, name) for name in self.ARRAYS}
        out["cell"] = np.array([self.cell_size, self.cell_height], np.float64)
        return out

    @classmethod
    def from_arrays(cls, arrays) -> BakeDebug:
        """Inverse of :meth:`to_arrays`; ValueError when a part is missing or mis-shaped."""
        missing = [n for n in (*cls.ARRAYS, "cell") if n not in arrays and n not in cls.OPTIONAL]
        if missing:
            raise ValueError(f"debug data: missing {', '.join(missing)}")
        spans = np.asarray(arrays["spans"])
        if spans.dtype != VOXEL_TOP:
            raise ValueError(f"debug data: spans have dtype {spans.dtype}, not {VOXEL_TOP}")
        points = np.asarray(arrays["contour_points"], np.float64).reshape(-1, 3)
        start = np.asarray(arrays["contour_start"], np.int64).reshape(-1)
        region = np.asarray(arrays["contour_region"], np.int32).reshape(-1)
        if start.shape[0] != region.shape[0] + 1 or start[0] != 0 \
                or start[-1] != points.shape[0] or (np.diff(start) < 0).any():
            raise ValueError("debug data: contour_start does not match the contours")
        cell = np.asarray(arrays["cell"], np.float64).reshape(-1)
        rejects = np.asarray(arrays["link_rejects"]) if "link_rejects" in arrays \
            else np.zeros(0, LINK_REJECT)
        if rejects.dtype != LINK_REJECT:
            raise ValueError(f"debug data: link_rejects have dtype {rejects.dtype}, not "
                             f"{LINK_REJECT}")
        return cls(float(cell[0]), float(cell[1]), spans, points, start, region, rejects)


def _span_columns(hf: Heightfield) -> np.ndarray:
    """The column of every span of the solid heightfield (walking the column lists in
    lock-step: as many numpy passes as the tallest column has spans)."""
    column = np.full(hf.span_min.shape[0], -1, np.int64)
    cols = np.nonzero(hf.column_head >= 0)[0]
    cur = hf.column_head[cols].astype(np.int64)
    while cur.size:
        column[cur] = cols
        nxt = hf.span_next[cur]
        more = nxt >= 0
        cols, cur = cols[more], nxt[more].astype(np.int64)
    return column


def capture_spans(debug: BakeDebug, hf: Heightfield, chf: CompactHeightfield) -> None:
    """Voxel tops: the compact heightfield's floors (area and region as baked) and the
    solid heightfield's tops that never became a floor (area 0). Call after regions."""
    cs, ch = float(chf.cs), float(chf.ch)
    bmin = np.asarray(chf.bmin, np.float64)
    debug.cell_size, debug.cell_height = cs, ch
    solid = np.nonzero(hf.span_area == 0)[0]
    column = _span_columns(hf)[solid]
    n_floor = chf.span_y.shape[0]
    spans = np.zeros(n_floor + solid.shape[0], VOXEL_TOP)
    gx = np.concatenate([chf.span_x, column % hf.width])
    gy = np.concatenate([chf.span_cy, column // hf.width])
    gz = np.concatenate([chf.span_y, hf.span_max[solid]])
    spans["x"] = bmin[0] + (gx + 0.5) * cs
    spans["y"] = bmin[1] + (gy + 0.5) * cs
    spans["z"] = bmin[2] + gz * ch
    spans["area"][:n_floor] = chf.span_area
    if chf.span_reg is not None:
        spans["region"][:n_floor] = chf.span_reg
    debug.spans = spans


def capture_contours(debug: BakeDebug, cset: ContourSet, bmin, cs: float, ch: float) -> None:
    """The simplified contours in world units."""
    v = np.asarray(cset.verts, np.float64).reshape(-1, 4)
    b = np.asarray(bmin, np.float64)
    debug.contour_points = np.stack([b[0] + v[:, 0] * cs, b[1] + v[:, 1] * cs,
                                     b[2] + v[:, 2] * ch], axis=1)
    debug.contour_start = np.asarray(cset.start, np.int64).copy()
    debug.contour_region = np.asarray(cset.reg, np.int32).copy()
