"""Climb objects of a Blender scene as core climb items, and their per-object settings.

Pure numpy (no bpy), so it is tested without Blender; :mod:`.gather` reads the objects and
calls it. See docs/climbing.md, "In Blender".

* Which objects: role Ledge / Ladder / Pipe (``navjump_role``), or a name ending in
  ``-ledge``, ``-ladder`` or ``-pipe`` (the command line's OBJ rule; Blender's duplicate
  number ``.001`` after it is ignored). Role Ignored wins over the name.
* A **ledge** from a wire mesh or a curve (edges, no faces): every straight run of its
  edges (chains split where they bend by more than :data:`BEND_DEG` or branch) is one
  ledge, named ``Object`` when there is one run, else ``Object[0]``, ``Object[1]``... From
  a mesh with faces: one ledge, the top line of its points (as in OBJ input).
* A **ladder or pipe**: the vertical axis of the bounds of its points (mesh, curve or the
  bounds of anything else), one element per object.

Per-object settings (:class:`ClimbObjectSettings`, i.e.
``core.climb_options.ElementOptions``; Object properties): the abilities the element needs
(instead of its kind's), which climb moves may touch it and which links to the navmesh it
gets; each item carries its object's settings into the core's graph build
(:func:`core_items`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from ..core.climb_options import ALL_LINKS, ElementOptions
from ..core.kinds import (
    CLIMB_ABILITIES,
    CLIMB_EDGE_KINDS,
    CLIMB_LADDER,
    CLIMB_LEDGE,
    CLIMB_LINK_KINDS,
    CLIMB_PIPE,
    CLIMB_SUFFIXES,
)

# (identifier, label, description): the role items props.ROLE_ITEMS appends
CLIMB_ROLE_ITEMS = (
    ('LEDGE', "Ledge", "A climb element: its edges' straight runs (a wire mesh or curve) or "
                       "its top line (a mesh with faces) become ledges; not walkable"),
    ('LADDER', "Ladder", "A climb element: the vertical axis of its bounds is a ladder; "
                         "not walkable"),
    ('PIPE', "Pipe", "A climb element: the vertical axis of its bounds is a pipe; "
                     "not walkable"),
)
# navjump_role values that make a climb element
ROLE_KINDS = {'LEDGE': CLIMB_LEDGE, 'LADDER': CLIMB_LADDER, 'PIPE': CLIMB_PIPE}
# Two edges of a wire ledge meeting at a bend sharper than this (degrees) start a new ledge.
BEND_DEG = 10.0
_DUPLICATE_NUMBER = re.compile(r"\.\d{3,}$")
ALL_LINK_KINDS = ALL_LINKS


class ClimbItem(NamedTuple):
    """One climb element to build (what ``core.climb.add_climbing`` takes as items)."""

    name: str
    kind: int  # CLIMB_LEDGE / CLIMB_LADDER / CLIMB_PIPE
    points: np.ndarray  # (K, 3) float64, world, Z up


# Per-object climbing settings (``navjump_climb_*`` Object properties): the core's
# per-element options (abilities or None for the kind's, moves, links).
ClimbObjectSettings = ElementOptions


def name_kind(name: str) -> int | None:
    """The climb kind a name's suffix gives (``Wall-ledge``, ``Wall-ledge.001``), or None."""
    base = _DUPLICATE_NUMBER.sub("", str(name)).lower()
    for suffix, kind in CLIMB_SUFFIXES.items():
        if base.endswith(suffix):
            return kind
    return None


def climb_kind(role: str, name: str) -> int | None:
    """The climb kind of an object with this role and name, or None (not a climb object)."""
    if role in ROLE_KINDS:
        return ROLE_KINDS[role]
    if role == 'IGNORED':
        return None
    return name_kind(name)


def abilities_mask(names) -> int:
    """Bit mask of ability names (``CLIMB_ABILITIES``); ValueError naming an unknown one."""
    mask = 0
    for n in names:
        if n not in CLIMB_ABILITIES:
            raise ValueError(f"unknown climbing ability {n!r} (known: "
                             f"{', '.join(CLIMB_ABILITIES)})")
        mask |= 1 << CLIMB_ABILITIES.index(n)
    return mask


def link_kinds_mask(names) -> int:
    mask = 0
    for n in names:
        mask |= 1 << CLIMB_LINK_KINDS.index(n)
    return mask


def moves_mask(names) -> int:
    """Bit mask of climb move names (``CLIMB_EDGE_KINDS``)."""
    mask = 0
    for n in names:
        mask |= 1 << CLIMB_EDGE_KINDS.index(n)
    return mask


def straight_runs(points: np.ndarray, edges: np.ndarray,
                  bend_deg: float = BEND_DEG) -> list[np.ndarray]:
    """Vertex index arrays of the straight runs of a wire's edges.

    Edges are joined at a vertex shared by exactly two of them that bend there by at most
    ``bend_deg``; each group of joined edges is one run (its vertices, sorted). Zero-length
    edges join nothing and are left to the element check (too short)."""
    pts = np.asarray(points, np.float64).reshape(-1, 3)
    e = np.asarray(edges, np.int64).reshape(-1, 2)
    if e.shape[0] == 0:
        return []
    parent = np.arange(e.shape[0])

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    d = pts[e[:, 1]] - pts[e[:, 0]]
    length = np.linalg.norm(d, axis=1)
    unit = d / np.maximum(length, 1e-12)[:, None]
    # vertices used by exactly two edges: candidates for a straight joint
    flat_v = e.ravel()
    degree = np.bincount(flat_v, minlength=pts.shape[0])
    owner = np.repeat(np.arange(e.shape[0]), 2)
    order = np.argsort(flat_v, kind="stable")
    sv, so = flat_v[order], owner[order]
    first = np.nonzero((sv[:-1] == sv[1:]) & (degree[sv[:-1]] == 2))[0]
    cos_max = np.cos(np.radians(bend_deg))
    for k in first.tolist():  # joints are few (a handful of edges per ledge object)
        a, b, v = int(so[k]), int(so[k + 1]), int(sv[k])
        if length[a] <= 0.0 or length[b] <= 0.0:
            continue
        # each edge's direction away from the shared vertex: straight when opposite
        away_a = unit[a] if e[a, 0] == v else -unit[a]
        away_b = unit[b] if e[b, 0] == v else -unit[b]
        if float(away_a @ away_b) <= -cos_max:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
    roots = np.array([find(i) for i in range(e.shape[0])])
    runs = []
    for r in np.unique(roots).tolist():
        runs.append(np.unique(e[roots == r].ravel()))
    return runs


def object_items(name: str, kind: int, points, edges=None,
                 has_faces: bool = True) -> list[ClimbItem]:
    """The climb items of one object from its world points (and edges, for a wire)."""
    pts = np.asarray(points, np.float64).reshape(-1, 3)
    e = np.zeros((0, 2), np.int64) if edges is None else np.asarray(edges).reshape(-1, 2)
    if kind == CLIMB_LEDGE and not has_faces and e.shape[0]:
        runs = straight_runs(pts, e)
        if len(runs) > 1:
            return [ClimbItem(f"{name}[{i}]", kind, pts[r]) for i, r in enumerate(runs)]
        if runs:
            return [ClimbItem(name, kind, pts[runs[0]])]
    return [ClimbItem(name, kind, pts)]


def item_object(item_name: str) -> str:
    """The object an item's name comes from (``Wall[2]`` -> ``Wall``)."""
    m = re.fullmatch(r"(.*)\[\d+\]", item_name)
    return m.group(1) if m else item_name


def core_items(items, by_object: dict) -> list[tuple]:
    """``(name, kind, points, options)`` items for ``core.climb.add_climbing``: each item
    with the settings of its object (``by_object``: object name -> settings; an object not
    in it gets the defaults)."""
    default = ElementOptions()
    return [(i.name, i.kind, i.points, by_object.get(item_object(i.name), default))
            for i in (ClimbItem(*tuple(it)[:3]) for it in items)]


def found_ledge_inputs(gathered) -> dict:
    """``add_climbing``'s per-triangle inputs for found ledges from the gathered objects:
    ``ledge_mask`` (False on the triangles of objects whose Find Ledges is off),
    ``triangle_object`` and ``object_names`` (found ledges named after their wall)."""
    import numpy as np

    names = list(getattr(gathered, "object_names", ()) or ())
    counts = np.asarray(getattr(gathered, "object_triangle_counts", ()) or (), np.int64)
    if not names or int(counts.sum()) != int(np.asarray(gathered.triangles).shape[0]):
        return {}
    owner = np.repeat(np.arange(len(names), dtype=np.int64), counts)
    allowed = list(getattr(gathered, "object_find_ledges", ()) or ())
    out = {"triangle_object": owner, "object_names": names}
    if len(allowed) == len(names) and not all(allowed):
        out["ledge_mask"] = np.asarray(allowed, np.bool_)[owner]
    return out


def add_gathered_climbing(navmesh, gathered, settings):
    """``navmesh`` with the climb graph of the gathered climb objects and of the ledges
    found on wall tops (``auto_ledges``), and warnings naming each object that was left
    out; unchanged when climbing is off or there is nothing to climb."""
    items = list(getattr(gathered, "climb", ()) or ())
    if not settings.climbing_enabled or not (items or settings.auto_ledges):
        return navmesh, []
    from ..core.climb import add_climbing

    by_object = getattr(gathered, "climb_settings", {}) or {}
    return add_climbing(navmesh, core_items(items, by_object), gathered.vertices,
                        gathered.triangles, settings, **found_ledge_inputs(gathered))
