"""Modifier volumes: named areas and "no generated links" volumes (issue 14).

A volume is a closed triangle mesh (OBJ objects named ``...-area-NAME`` or ``...-nolinks``,
Blender objects marked as volumes). During a bake (``pipeline.bake(..., volumes=...)``):

* an **area volume** gives every walkable span whose surface point, lifted by
  :data:`LIFT_CELLS` cell heights, lies inside the mesh the area NAME. This happens on the
  compact heightfield before regions are built, so polygons are cut along the volume's
  outline and each polygon has exactly one area. Where area volumes overlap, the **later
  one wins** (file order in an OBJ; in Blender, the order of the object list).
* a **no-links volume** removes every generated link with an end (the midpoint of its start
  or end segment) inside it; hand-placed links are kept.

Inside means: a vertical ray from the point upwards crosses the mesh an odd number of times
(the point is nudged by a tiny fixed offset so grid-aligned boxes have no ties).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .kinds import AREA_SUFFIX, BUILTIN_AREAS, MAX_AREAS, NOLINKS_SUFFIX, USER_AREA_FIRST

VOLUME_KINDS = ("area", "nolinks")
# The surface point tested is this many cell heights above the span's floor (so a volume
# whose bottom face lies exactly on the floor still holds the floor).
LIFT_CELLS = 1.0
# A volume must enclose at least this much (m^3): a flat or open mesh has no inside.
MIN_VOLUME = 1e-6
# Fixed nudge of the tested points (m), away from grid lines and box faces.
_NUDGE = np.array([3.1e-7, 1.7e-7, 2.3e-7])
# Span area codes during a bake: stance area (1..3) in the low 2 bits, user-area index
# (0 = none, k = area id USER_AREA_FIRST + k - 1) above them.
STANCE_BITS = 2


class Volume(NamedTuple):
    """One modifier volume: the object's name, its kind (``VOLUME_KINDS``), the area name
    (``"area"`` volumes) and its closed mesh (world metres, Z up)."""

    name: str
    kind: str
    area: str
    vertices: np.ndarray  # (K, 3) float64
    triangles: np.ndarray  # (T, 3) int64


def parse_cost(name: str, text) -> float:
    """An area cost from ``text``: a number > 0, or < 0 / 'inf' for "not walkable" (inf)."""
    try:
        cost = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"area cost of {name!r}: cannot read {text!r} as a number "
                         f"(use a number > 0, or -1 / inf for not walkable)") from None
    if math.isnan(cost) or cost == 0:
        raise ValueError(f"area cost of {name!r}: {text!r}; use a number > 0, or -1 / inf "
                         f"for not walkable")
    return math.inf if cost < 0 else cost


def parse_area_costs(items: Sequence[str], what: str = "--area-cost") -> dict[str, float]:
    """``["water=5", "lava=inf"]`` as ``{"water": 5.0, "lava": inf}``."""
    out: dict[str, float] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"{what} expects NAME=COST, got {item!r}")
        name, text = (s.strip() for s in item.split("=", 1))
        if not name:
            raise ValueError(f"{what} expects NAME=COST, got {item!r}")
        out[name] = parse_cost(name, text)
    return out


def volume_from_name(name: str, vertices, triangles) -> Volume | None:
    """The Volume an object named ``name`` makes (by its suffix), or None."""
    if name.endswith(NOLINKS_SUFFIX):
        kind, area = "nolinks", ""
    elif AREA_SUFFIX in name and name.rsplit(AREA_SUFFIX, 1)[1]:
        kind, area = "area", name.rsplit(AREA_SUFFIX, 1)[1]
    else:
        return None
    return check_volume(Volume(name, kind, area, np.asarray(vertices, np.float64).reshape(-1, 3),
                               np.asarray(triangles, np.int64).reshape(-1, 3)))


def signed_volume(v: np.ndarray, t: np.ndarray) -> float:
    if t.shape[0] == 0:
        return 0.0
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    o = v[t].reshape(-1, 3).mean(axis=0)
    return float(np.einsum("ij,ij->i", a - o, np.cross(b - o, c - o)).sum() / 6.0)


def check_volume(vol: Volume) -> Volume:
    """``vol`` if it is usable; ValueError naming the object otherwise (unknown kind, a
    reserved area name, an open or flat mesh)."""
    if vol.kind not in VOLUME_KINDS:
        raise ValueError(f"volume {vol.name!r}: unknown kind {vol.kind!r}; kinds are "
                         f"{', '.join(VOLUME_KINDS)}")
    if vol.kind == "area":
        if not vol.area or vol.area in BUILTIN_AREAS:
            raise ValueError(f"volume {vol.name!r}: area name {vol.area!r} is empty or "
                             f"reserved (reserved: {', '.join(BUILTIN_AREAS)})")
    v, t = vol.vertices, vol.triangles
    if t.shape[0] < 4 or not np.isfinite(v).all():
        raise ValueError(f"volume {vol.name!r}: {t.shape[0]} triangles enclose no volume; a "
                         f"modifier volume must be a closed mesh (e.g. a box)")
    vol_m3 = abs(signed_volume(v, t))
    if not vol_m3 > MIN_VOLUME:
        raise ValueError(f"volume {vol.name!r}: encloses {vol_m3:.3g} m3 (flat); a modifier "
                         f"volume needs a volume above {MIN_VOLUME:g} m3")
    # closed: every edge (between welded positions) is used by exactly two triangles
    _, weld = np.unique(np.round(v / 1e-6), axis=0, return_inverse=True)
    w = weld.reshape(-1)[t]
    e = np.sort(np.concatenate([w[:, [0, 1]], w[:, [1, 2]], w[:, [2, 0]]]), axis=1)
    _, counts = np.unique(e, axis=0, return_counts=True)
    if (counts != 2).any():
        raise ValueError(f"volume {vol.name!r}: the mesh is not closed "
                         f"({int((counts != 2).sum())} edges not shared by exactly two faces); "
                         f"a modifier volume must be a closed mesh (e.g. a box)")
    return vol


def points_inside(vol: Volume, points) -> np.ndarray:
    """(N,) bool: which points lie inside the closed mesh (vertical ray parity)."""
    p = np.asarray(points, np.float64).reshape(-1, 3) + _NUDGE
    inside = np.zeros(p.shape[0], np.bool_)
    v, t = vol.vertices, vol.triangles
    lo, hi = v.min(axis=0), v.max(axis=0)
    cand = np.nonzero((p[:, 0] >= lo[0]) & (p[:, 0] <= hi[0]) & (p[:, 1] >= lo[1])
                      & (p[:, 1] <= hi[1]) & (p[:, 2] <= hi[2]))[0]
    if cand.size == 0:
        return inside
    q = p[cand]
    crossings = np.zeros(cand.size, np.int64)
    for a, b, c in v[t]:
        det = (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1])
        if abs(det) < 1e-15:
            continue  # a vertical face: a vertical ray never crosses it
        dx, dy = q[:, 0] - a[0], q[:, 1] - a[1]
        u = (dx * (c[1] - a[1]) - (c[0] - a[0]) * dy) / det
        w = ((b[0] - a[0]) * dy - dx * (b[1] - a[1])) / det
        hit = (u >= 0) & (w >= 0) & (u + w <= 1)
        z = a[2] + u * (b[2] - a[2]) + w * (c[2] - a[2])
        crossings += hit & (z > q[:, 2])
    inside[cand] = crossings % 2 == 1
    return inside


def area_table(volumes) -> tuple[str, ...]:
    """The NavMesh area names: the built-in ones, then each volume's area in first-seen
    order; ValueError when there are more than a Detour area id can hold."""
    names = list(BUILTIN_AREAS)
    for vol in volumes:
        if vol.kind == "area" and vol.area not in names:
            names.append(vol.area)
    if len(names) > MAX_AREAS:
        raise ValueError(f"{len(names) - USER_AREA_FIRST} areas named by volumes; at most "
                         f"{MAX_AREAS - USER_AREA_FIRST} are supported")
    return tuple(names)


def mark_spans(chf, volumes, names) -> None:
    """Give the walkable spans inside each area volume its area (in ``chf.span_area``, as
    stance area | user-area index << STANCE_BITS); later volumes win."""
    walk = np.nonzero(chf.span_area != 0)[0]
    if walk.size == 0:
        return
    pts = np.stack([chf.bmin[0] + (chf.span_x[walk] + 0.5) * chf.cs,
                    chf.bmin[1] + (chf.span_cy[walk] + 0.5) * chf.cs,
                    chf.bmin[2] + (chf.span_y[walk] + LIFT_CELLS) * chf.ch], axis=1)
    for vol in volumes:
        if vol.kind != "area":
            continue
        k = names.index(vol.area) - USER_AREA_FIRST + 1
        sel = walk[points_inside(vol, pts)]
        chf.span_area[sel] = (chf.span_area[sel] & 3) | np.uint8(k << STANCE_BITS)


def polygon_area_ids(codes) -> tuple[np.ndarray, np.ndarray]:
    """(stance area 1..3, final area id) of polygons from their bake-time span codes."""
    codes = np.asarray(codes, np.uint8)
    stance_area = codes & np.uint8(3)
    k = codes >> np.uint8(STANCE_BITS)
    area = np.where(k > 0, USER_AREA_FIRST + k.astype(np.int64) - 1, stance_area)
    return stance_area, area.astype(np.uint8)


def drop_links_in(nm, volumes) -> int:
    """Remove from ``nm`` (in place) the generated links with an end inside a no-links
    volume; returns how many were removed."""
    vols = [v for v in volumes if v.kind == "nolinks"]
    if not vols or nm.link_count == 0:
        return 0
    ends = np.concatenate([nm.link_start.mean(axis=1), nm.link_end.mean(axis=1)])
    hit = np.zeros(ends.shape[0], np.bool_)
    for vol in vols:
        hit |= points_inside(vol, ends)
    drop = hit[:nm.link_count] | hit[nm.link_count:]
    if drop.any():
        keep = ~drop
        for name in [f for f in nm.array_fields() if f.startswith("link_")]:
            setattr(nm, name, getattr(nm, name)[keep])
    return int(drop.sum())
