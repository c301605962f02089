"""A smoothed curve through a path's points (docs/path-queries.md, "Smoothed curve").

Pure numpy. The curve is a chain of cubic Hermite segments, one per path segment
``points[i] -> points[i + 1]``, on the parameter ``u`` in ``[0, N - 1]`` (segment ``i`` is
``u`` in ``[i, i + 1]``). It passes through every path point (``curve(i) == points[i]``),
so it starts and ends on the path's end points, and its tangent ``dp/du`` at point ``i``
is one vector shared by the segments either side: the curve is C1 everywhere.

Tangents (:func:`path_curve`):

* **A turn** (an interior point): along the bisector of the incoming and outgoing
  directions, ``m = tension * min(L_in, L_out, 4 * max_deviation) * (u_in + u_out) / 2``
  (``u_*`` unit directions, ``L_*`` segment lengths): as long as the shorter neighbour
  segment on a straight line, shorter the sharper the turn (``|u_in + u_out| / 2`` is the
  cosine of half the turn), zero where the path turns back on itself.
* **The ends**: along the first / last segment, ``tension * min(L, 4 * max_deviation)``
  long.
* **Moves along an element** (a segment whose start point is flagged ``shimmy``,
  ``ladder_climb`` or ``pipe_climb``: the hands stay on the ledge, ladder or pipe) stay
  on their straight segment: the tangents at both its ends are parallel to it, so where
  such a move meets a segment in another direction (within ``COLLINEAR_DEG``: the same
  direction) the tangent is zero: the curve comes to rest at that point and turns there,
  as a climber stops at a ladder's top before mounting. Every other move (walking, jumps,
  drops, getting on and off the climb graph) is smoothed as above.

**Distance to the path** (the documented bound, tested): with ``p(t) = P0 + h01(t) (P1 -
P0) + h10(t) m0 + h11(t) m1`` and ``|h10| + |h11| = t (1 - t) <= 1/4``, every point of
segment ``i`` lies within ``max(|m_i|, |m_i+1|) / 4`` of the straight segment
``P_i P_i+1``, which is at most ``min(tension * L_i, 4 * max_deviation) / 4``: so within
``max_deviation`` of the polyline, and within a quarter of ``tension`` times each
segment's length of that segment (a short segment gets a tight curve). The arc length is
never shorter than the polyline's (the curve passes through every point in order).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kinds import FLAG_NAMES

# Moves whose segment the curve keeps straight (the hands stay on the element, or on the
# wall's edge round an outside corner).
ALONG_ELEMENT_FLAGS = frozenset(FLAG_NAMES.index(n)
                                for n in ("shimmy", "ladder_climb", "pipe_climb",
                                          "climb_corner"))
# Two segments whose directions differ by less than this (degrees) continue straight.
COLLINEAR_DEG = 1.0
DEFAULT_TENSION = 1.0
DEFAULT_MAX_DEVIATION = 0.25  # metres
DEFAULT_SPACING = 0.25  # metres between samples of CurveSamples


class CurveSamples(NamedTuple):
    """Points along a curve: ``points[k]`` is the curve at parameter ``u[k]``."""

    points: np.ndarray  # (M, 3) float64
    u: np.ndarray  # (M,) float64, non-decreasing from 0 to N - 1


class PathCurve(NamedTuple):
    """A C1 cubic Hermite curve through ``points`` (see the module doc)."""

    points: np.ndarray  # (N, 3) float64: the path points, curve(i) == points[i]
    tangents: np.ndarray  # (N, 3) float64: dp/du at each point
    max_deviation: float  # no point of the curve is farther than this from the polyline

    @property
    def segment_count(self) -> int:
        return max(self.points.shape[0] - 1, 0)

    def _locate(self, u) -> tuple[np.ndarray, np.ndarray]:
        u = np.asarray(u, np.float64).reshape(-1)
        if self.points.shape[0] == 0:
            raise ValueError("an empty curve (a path without points) has no points")
        if not np.isfinite(u).all() or (u < 0).any() or (u > self.segment_count).any():
            raise ValueError(f"curve parameters must lie in [0, {self.segment_count}] "
                             f"(one unit per path segment)")
        i = np.minimum(np.floor(u).astype(np.int64), max(self.segment_count - 1, 0))
        return i, u - i

    def evaluate(self, u) -> np.ndarray:
        """Points (M, 3) of the curve at parameters ``u`` (in ``[0, N - 1]``)."""
        i, t = self._locate(u)
        if self.segment_count == 0:
            return np.repeat(self.points[:1], i.shape[0], axis=0)
        t = t[:, None]
        t2, t3 = t * t, t * t * t
        p0, p1 = self.points[i], self.points[i + 1]
        m0, m1 = self.tangents[i], self.tangents[i + 1]
        return ((2 * t3 - 3 * t2 + 1) * p0 + (t3 - 2 * t2 + t) * m0
                + (-2 * t3 + 3 * t2) * p1 + (t3 - t2) * m1)

    def derivative(self, u) -> np.ndarray:
        """Tangents dp/du (M, 3) at parameters ``u``."""
        i, t = self._locate(u)
        if self.segment_count == 0:
            return np.zeros((i.shape[0], 3))
        t = t[:, None]
        t2 = t * t
        p0, p1 = self.points[i], self.points[i + 1]
        m0, m1 = self.tangents[i], self.tangents[i + 1]
        return ((6 * t2 - 6 * t) * p0 + (3 * t2 - 4 * t + 1) * m0
                + (-6 * t2 + 6 * t) * p1 + (3 * t2 - 2 * t) * m1)

    def sample(self, spacing: float = DEFAULT_SPACING) -> CurveSamples:
        """Points along the curve, each path segment split into ``ceil(length / spacing)``
        equal parameter steps (at least one); every path point is a sample."""
        spacing = float(spacing)
        if not spacing > 0 or not np.isfinite(spacing):
            raise ValueError(f"curve sample spacing must be a positive number of metres, "
                             f"got {spacing!r}")
        n = self.segment_count
        if self.points.shape[0] == 0:
            return CurveSamples(np.zeros((0, 3)), np.zeros(0))
        if n == 0:
            return CurveSamples(self.points[:1].copy(), np.zeros(1))
        length = np.linalg.norm(np.diff(self.points, axis=0), axis=1)
        steps = np.maximum(np.ceil(length / spacing), 1).astype(np.int64)
        seg = np.repeat(np.arange(n), steps)
        first = np.repeat(np.cumsum(steps) - steps, steps)
        t = (np.arange(seg.shape[0]) - first) / steps[seg]
        u = np.concatenate([seg + t, [float(n)]])
        return CurveSamples(self.evaluate(u), u)

    def length(self, spacing: float = 0.05) -> float:
        """Arc length, from samples ``spacing`` apart (a slight underestimate)."""
        p = self.sample(spacing).points
        return float(np.linalg.norm(np.diff(p, axis=0), axis=1).sum())


def path_curve(points, flags=None, tension: float = DEFAULT_TENSION,
               max_deviation: float = DEFAULT_MAX_DEVIATION) -> PathCurve:
    """The smoothed curve through a path's ``points`` (N, 3), with its point ``flags``
    (N,) (indices into ``FLAG_NAMES``; None: all walking). See the module doc.

    ``tension`` in [0, 3] scales the tangents (0: the polyline itself); ``max_deviation``
    (metres, >= 0) bounds how far the curve strays from the polyline.
    """
    p = np.asarray(points, np.float64)
    if p.ndim != 2 or p.shape[1] != 3:
        raise ValueError(f"path points must be an (N, 3) array, got shape {p.shape}")
    if not np.isfinite(p).all():
        raise ValueError("path points must be finite (a NaN or infinite coordinate given)")
    n = p.shape[0]
    fl = np.zeros(n, np.int64) if flags is None else np.asarray(flags, np.int64).reshape(-1)
    if fl.shape[0] != n:
        raise ValueError(f"{fl.shape[0]} flags given for {n} path points (one per point)")
    tension, max_deviation = float(tension), float(max_deviation)
    if not 0.0 <= tension <= 3.0:
        raise ValueError(f"curve tension must lie in [0, 3], got {tension!r}")
    if not (max_deviation >= 0.0 and np.isfinite(max_deviation)):
        raise ValueError(f"curve max_deviation must be a finite number of metres >= 0, "
                         f"got {max_deviation!r}")
    m = np.zeros((n, 3))
    if n < 2:
        return PathCurve(p.copy(), m, max_deviation)
    d = np.diff(p, axis=0)
    seg_len = np.linalg.norm(d, axis=1)
    unit = np.where(seg_len[:, None] > 1e-12, d / np.maximum(seg_len, 1e-12)[:, None], 0.0)
    reach = np.minimum(tension * seg_len, 4.0 * max_deviation)  # longest tangent per segment
    along = np.isin(fl[:-1], list(ALONG_ELEMENT_FLAGS))  # segment i keeps straight
    # ends: along their segment
    m[0] = reach[0] * unit[0]
    m[-1] = reach[-1] * unit[-1]
    if n > 2:
        u_in, u_out = unit[:-1], unit[1:]
        size = np.minimum(reach[:-1], reach[1:])
        bis = (u_in + u_out) / 2.0
        inner = size[:, None] * bis
        straight = (u_in * u_out).sum(axis=1) >= np.cos(np.radians(COLLINEAR_DEG))
        a_in, a_out = along[:-1], along[1:]
        # a move along an element keeps its own direction; a turn at its end stops there
        inner = np.where((a_in & ~a_out & straight)[:, None], size[:, None] * u_in, inner)
        inner = np.where((a_out & ~a_in & straight)[:, None], size[:, None] * u_out, inner)
        inner = np.where(((a_in | a_out) & ~straight)[:, None], 0.0, inner)
        m[1:-1] = inner
    return PathCurve(p.copy(), m, max_deviation)


__all__ = ["ALONG_ELEMENT_FLAGS", "COLLINEAR_DEG", "CurveSamples", "DEFAULT_MAX_DEVIATION",
           "DEFAULT_SPACING", "DEFAULT_TENSION", "PathCurve", "path_curve"]
