"""Modifier volumes and hand-placed links of a Blender scene (issue 14).

Objects marked in their NavJump settings (``object.navjump_nav``, :mod:`.props_agents`):

* **Area volume** (a closed mesh, ``volume`` AREA, ``area`` one of the scene's area types):
  the navmesh inside it gets that area. Where area volumes overlap, the one whose **name
  sorts last** wins (volumes are applied in name order, later ones over earlier ones).
* **No-links volume** (a closed mesh, ``volume`` NOLINKS): generated links with an end
  inside it are removed.
* **No Generated Links** on any baked object: a no-links volume of its world bounding box,
  raised by :data:`NOLINKS_RAISE` metres so links starting on its top are inside.
* **Object area** (``area`` on a walkable mesh object): its upward-facing faces, as a thin
  layer (:data:`OBJECT_AREA_BELOW` below to :data:`OBJECT_AREA_ABOVE` above them), get that
  area. Object areas apply first (in name order), area volumes over them.
* **Link**: a mesh with exactly two vertices (first -> second) or an empty whose
  ``link_end`` is another empty; width, both ways, kind, cost from its settings.

Volumes and links are not walkable geometry: the gather leaves them out
(``gather.is_nav_object``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.areas import Volume, check_volume
from ..core.custom_links import CustomLink
from .gather import mesh_arrays, transform

# How far above an object's bounding box a "No Generated Links" volume reaches (m).
NOLINKS_RAISE = 2.0
# An object's own area (``area`` on a walkable object) marks the navmesh from this far
# below to this far above its upward-facing faces (m).
OBJECT_AREA_BELOW = 0.3
OBJECT_AREA_ABOVE = 0.6


class NavObjects(NamedTuple):
    volumes: list  # core.areas.Volume, in the order they apply
    links: list  # core.custom_links.CustomLink
    not_geometry: list  # objects the bake must not rasterise
    agents: list = []  # core.agents.Agent of the scene's agent list (filled by the bake)
    shown: str = ""  # the agent drawn as the result objects

    @property
    def any(self) -> bool:
        """Something needs the agents path of the bake (core.agents.bake_agents)."""
        return bool(self.agents or self.volumes or self.links)


def _settings(obj):
    return getattr(obj, "navjump_nav", None)


def box_mesh(lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """A closed box (8 vertices, 12 outward triangles) from corner ``lo`` to ``hi``."""
    lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
    v = np.array([[x, y, z] for z in (lo[2], hi[2]) for y in (lo[1], hi[1])
                  for x in (lo[0], hi[0])])
    t = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
                  [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]], np.int64)
    return v, t


def _world_mesh(obj, depsgraph):
    ev = obj.evaluated_get(depsgraph) if depsgraph is not None else obj
    co, tris = mesh_arrays(ev.data)
    return transform(co, tris, ev.matrix_world)


def _volume(obj, depsgraph, area_types) -> Volume:
    s = _settings(obj)
    if obj.type != 'MESH':
        raise ValueError(f"volume {obj.name!r}: a modifier volume must be a mesh object, "
                         f"not {obj.type.lower()}")
    if s.volume == 'AREA':
        if not s.area:
            raise ValueError(f"volume {obj.name!r}: Area is empty; choose one of the scene's "
                             f"area types")
        if s.area not in area_types:
            known = ", ".join(area_types) or "none yet: add one in the Areas panel"
            raise ValueError(f"volume {obj.name!r}: Area {s.area!r} is not an area type of "
                             f"the scene (area types: {known})")
    world, tris = _world_mesh(obj, depsgraph)
    kind = "area" if s.volume == 'AREA' else "nolinks"
    return check_volume(Volume(obj.name, kind, s.area if kind == "area" else "",
                               world, tris.astype(np.int64)))


def _check_area(obj, area, area_types) -> None:
    if area not in area_types:
        known = ", ".join(area_types) or "none yet: add one in the Area Types panel"
        raise ValueError(f"object {obj.name!r}: Area {area!r} is not an area type of the "
                         f"scene (area types: {known})")


def surface_layer(vertices, triangles, below=OBJECT_AREA_BELOW, above=OBJECT_AREA_ABOVE):
    """A volume mesh holding the points from ``below`` under to ``above`` over the
    upward-facing triangles: each triangle's copy shifted down and up (the vertical ray
    test of ``core.areas.points_inside`` never crosses side faces, so none are needed;
    the layer is not a closed mesh and skips ``check_volume``)."""
    v = np.asarray(vertices, np.float64)
    t = np.asarray(triangles, np.int64).reshape(-1, 3)
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    nz = np.cross(b - a, c - a)[:, 2]
    t = t[nz > 1e-12]
    tv = v[t].reshape(-1, 3)
    n = tv.shape[0]
    lo, hi = tv - [0.0, 0.0, below], tv + [0.0, 0.0, above]
    idx = np.arange(n).reshape(-1, 3)
    tris = np.concatenate([idx[:, [0, 2, 1]], idx + n])
    return np.concatenate([lo, hi]), tris


def _link(obj, depsgraph, area_types=()) -> CustomLink:
    s = _settings(obj)
    if s.link_area and s.link_area not in area_types:
        known = ", ".join(area_types) or "none yet: add one in the Area Types panel"
        raise ValueError(f"link {obj.name!r}: Link Area {s.link_area!r} is not an area type "
                         f"of the scene (area types: {known})")
    if obj.type == 'EMPTY':
        if s.link_end is None:
            raise ValueError(f"link {obj.name!r}: Link End is not set; choose the empty "
                             f"where the link lands")
        start = np.array(obj.matrix_world.translation, np.float64)
        end = np.array(s.link_end.matrix_world.translation, np.float64)
    elif obj.type == 'MESH':
        ev = obj.evaluated_get(depsgraph) if depsgraph is not None else obj
        mesh = ev.data
        if len(mesh.vertices) != 2:
            raise ValueError(f"link {obj.name!r}: a link mesh needs exactly two vertices "
                             f"(one edge), it has {len(mesh.vertices)}")
        co = np.empty(6, np.float32)
        mesh.vertices.foreach_get("co", co)
        m = np.array(ev.matrix_world, np.float64).reshape(4, 4)
        pts = co.reshape(2, 3).astype(np.float64) @ m[:3, :3].T + m[:3, 3]
        start, end = pts[0], pts[1]
    else:
        raise ValueError(f"link {obj.name!r}: a link is a mesh with one edge or an empty, "
                         f"not {obj.type.lower()}")
    return CustomLink(obj.name, start, end, bidirectional=bool(s.link_bidirectional),
                      width=float(s.link_width), cost=float(s.link_cost),
                      kind=str(s.link_kind), area=str(s.link_area))


def nav_objects(objects, depsgraph=None, area_types=()) -> NavObjects:
    """Volumes and links of ``objects`` (the visible objects of the bake); ValueError
    naming the object and the setting for a bad one."""
    volumes, links, skip = [], [], []
    nolinks, object_areas = [], []
    for obj in sorted(objects, key=lambda o: o.name):
        s = _settings(obj)
        if s is None:
            continue
        if s.volume != 'NONE':
            volumes.append(_volume(obj, depsgraph, list(area_types)))
            skip.append(obj)
            continue
        if s.is_link:
            links.append(_link(obj, depsgraph, list(area_types)))
            skip.append(obj)
            continue
        if s.area and obj.type == 'MESH' and getattr(obj, "navjump_role", "") != 'IGNORED':
            _check_area(obj, s.area, list(area_types))
            world, tris = _world_mesh(obj, depsgraph)
            v, t = surface_layer(world, tris)
            if t.shape[0]:
                object_areas.append(Volume(f"{obj.name} (object area)", "area", s.area, v, t))
        if s.no_links and obj.type in {'MESH', 'CURVE', 'SURFACE', 'FONT', 'META'}:
            corners = np.array([tuple(obj.matrix_world @ _vec(c)) for c in obj.bound_box])
            lo, hi = corners.min(axis=0), corners.max(axis=0)
            lo = lo - 1e-3
            hi = hi + np.array([1e-3, 1e-3, NOLINKS_RAISE])
            v, t = box_mesh(lo, hi)
            nolinks.append(check_volume(Volume(f"{obj.name} (No Generated Links)", "nolinks",
                                               "", v, t)))
    return NavObjects(object_areas + volumes + nolinks, links, skip)


def scene_nav_objects(context, collection=None, depsgraph=None) -> NavObjects:
    """The volumes and links among the objects a bake of ``context`` reads (a collection's,
    or the view layer's visible ones)."""
    if collection is not None:
        objects = list(collection.all_objects)
    else:
        vl = context.view_layer
        objects = [o for o in vl.objects if o.visible_get(view_layer=vl)]
    pg = getattr(context.scene, "navjump_agents", None)
    areas = [a.name for a in pg.areas] if pg is not None else []
    return nav_objects([o for o in objects if _settings(o) is not None], depsgraph, areas)


def _vec(c):
    from mathutils import Vector

    return Vector(tuple(c))
