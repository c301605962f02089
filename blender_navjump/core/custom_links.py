"""Hand-placed links (issue 14): doors, teleporters, ledges the generator should not use.

A :class:`CustomLink` is two end points placed by the designer (OBJ objects named
``...-link`` / ``...-link-oneway`` holding one line element ``l a b``). After the bake (and
the generated links), :func:`add_custom_links` snaps each end to the nearest navmesh
polygon within :data:`SNAP_EXTENTS` of it and appends the link to the NavMesh's link arrays
(kind ``"custom"`` unless another kind is given), where queries, exports and the overlay
treat it as any link. An end farther than that from every polygon is an error naming the
object.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .kinds import BUILTIN_AREAS, LINK_KIND_AREAS, LINK_KINDS, MAX_AREAS

# Half-extents (x, y, z; metres) of the box searched around each end for a polygon.
SNAP_EXTENTS = (1.0, 1.0, 2.0)


class CustomLink(NamedTuple):
    """A hand-placed link. ``width``: the width of its start and end segments (0: a point
    link); ``cost``: the cost of taking it (< 0: its straight length; a cost below the
    distance it covers counts as that distance, see docs/path-queries.md); ``area``: an
    area name ("" none): each agent's cost of that area multiplies the link's cost, and an
    agent for which the area is not walkable gets no such link (applied at bake time)."""

    name: str
    start: np.ndarray  # (3,) world, Z up
    end: np.ndarray  # (3,)
    bidirectional: bool = True
    width: float = 0.0
    cost: float = -1.0
    kind: str = "custom"
    area: str = ""


def check_link(link: CustomLink) -> CustomLink:
    """``link`` with numpy ends; ValueError naming the object when it is unusable."""
    start = np.asarray(link.start, np.float64).reshape(-1)
    end = np.asarray(link.end, np.float64).reshape(-1)
    if start.shape != (3,) or end.shape != (3,) or not (np.isfinite(start).all()
                                                        and np.isfinite(end).all()):
        raise ValueError(f"link {link.name!r}: its ends must be two finite 3D points")
    if link.kind not in LINK_KINDS:
        raise ValueError(f"link {link.name!r}: unknown kind {link.kind!r}; kinds are "
                         f"{', '.join(LINK_KINDS)}")
    if not (np.isfinite(link.width) and link.width >= 0):
        raise ValueError(f"link {link.name!r}: width must be >= 0 m, got {link.width!r}")
    if not np.isfinite(link.cost):
        raise ValueError(f"link {link.name!r}: cost must be finite, got {link.cost!r}")
    if link.area in BUILTIN_AREAS:
        raise ValueError(f"link {link.name!r}: area {link.area!r} is reserved; give it a "
                         f"name of your own (reserved: {', '.join(BUILTIN_AREAS[1:])})")
    if np.allclose(start, end):
        raise ValueError(f"link {link.name!r}: its two ends are at the same place")
    return link._replace(start=start, end=end)


def _segment(point: np.ndarray, direction: np.ndarray, width: float) -> np.ndarray:
    """A (2, 3) segment of ``width`` through ``point``, across ``direction`` (seen from
    above)."""
    d = direction[:2]
    n = float(np.hypot(d[0], d[1]))
    side = np.array([-d[1], d[0], 0.0]) / n if n > 1e-9 else np.array([1.0, 0.0, 0.0])
    return np.stack([point - 0.5 * width * side, point + 0.5 * width * side])


def add_custom_links(nm, links, settings=None, area_cost=None):
    """A copy of ``nm`` with the hand-placed ``links`` snapped and appended (``nm`` itself
    when there are none). ValueError naming the object when an end is off the navmesh.
    ``area_cost``: the agent's cost per area name (missing: 1) for links with an area."""
    links = [check_link(k) for k in links]
    area_cost = dict(area_cost or {})
    off = [bool(k.area) and math.isinf(area_cost.get(k.area, 1.0)) for k in links]
    excluded = [k for k, o in zip(links, off, strict=True) if o]
    links = [k for k, o in zip(links, off, strict=True) if not o]
    if not links:
        if excluded:
            nm.stats = dict(nm.stats, custom_links_excluded=len(excluded))
        return nm
    if nm.polygon_count == 0:
        raise ValueError(f"link {links[0].name!r}: the navmesh has no polygons to place it "
                         f"on")
    names, table_cost, ids = link_area_ids(nm, links, area_cost)
    from .navmesh import append_links
    from .query.path import NavQuery
    from .query.spatial import nearest_polygon_anywhere

    q = NavQuery(nm)
    ext = np.array(SNAP_EXTENTS)
    allowed = np.ones(int(q.data.poly_stance.max()) + 1, np.bool_)
    starts, ends, sp, ep = [], [], [], []
    for link in links:
        snapped = []
        for end_name, point in (("start", link.start), ("end", link.end)):
            poly, on, _dist = q.nearest_polygon(point, extents=ext)
            if poly < 0:
                _p, dist = nearest_polygon_anywhere(q.data, *point, allowed)
                raise ValueError(
                    f"link {link.name!r}: its {end_name} {tuple(round(float(c), 3) for c in point)}"
                    f" is {dist:.2f} m from the navmesh, farther than the snap box of "
                    f"half-extents {SNAP_EXTENTS} m; move it onto a walkable surface")
            snapped.append((poly, on))
        (p0, a), (p1, b) = snapped
        direction = b - a
        starts.append(_segment(a, direction, link.width))
        ends.append(_segment(b, direction, link.width))
        sp.append(p0)
        ep.append(p1)
    starts_a, ends_a = np.array(starts), np.array(ends)
    length = np.linalg.norm(ends_a.mean(axis=1) - starts_a.mean(axis=1), axis=1)
    costs = np.array([(k.cost if k.cost >= 0 else ln) * area_cost.get(k.area, 1.0)
                      for k, ln in zip(links, length, strict=True)])
    kinds = [LINK_KINDS.index(k.kind) for k in links]
    out = append_links(nm, kinds, starts_a, ends_a, [k.bidirectional for k in links], sp, ep,
                       costs, areas=ids)
    out.area_names, out.area_cost = names, table_cost
    out.stats = dict(nm.stats)
    out.stats["custom_links"] = len(links)
    if excluded:
        out.stats["custom_links_excluded"] = len(excluded)
    out.stats["links_total"] = out.link_count
    return out


def link_area_ids(nm, links, area_cost):
    """The area table of ``nm`` extended by the areas only these hand-placed ``links`` name
    (in order of first use; table cost: the agent's cost of that area, 1 by default), and
    the area id of each link (its kind's built-in area when it names none)."""
    names = [str(n) for n in nm.area_names]
    table_cost = [float(c) for c in nm.area_cost]
    ids = []
    for link in links:
        if not link.area:
            ids.append(LINK_KIND_AREAS[LINK_KINDS.index(link.kind)])
            continue
        if link.area not in names:
            if len(names) >= MAX_AREAS:
                raise ValueError(f"link {link.name!r}: area {link.area!r} would be area "
                                 f"number {len(names) + 1}; a navmesh holds at most "
                                 f"{MAX_AREAS} areas (Detour's 6-bit area ids)")
            names.append(link.area)
            table_cost.append(float(area_cost.get(link.area, 1.0)))
        ids.append(names.index(link.area))
    return (np.array(names, np.str_), np.array(table_cost, np.float64),
            np.array(ids, np.uint8))
