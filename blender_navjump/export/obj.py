"""Wavefront OBJ export of a NavMesh, for eyeballing in any 3D tool.

Polygons are faces grouped by stance (``g stance_stand`` ...), in stance order and, inside a
group, in polygon order. Each link adds six vertices and three ``l`` lines in a
``g links_<kind>`` group: the start segment, the end segment, and the line from the start
segment's midpoint to the end segment's midpoint. A hand-placed link with an area is in a
group that also names the area, ``g links_custom area_water`` (an OBJ element may belong to
several groups; :func:`group_area` reads it back); the area name is percent-encoded there
(``deep water`` -> ``area_deep%20water``), because OBJ splits group names at spaces. A climb
graph (docs/climbing.md) adds, after the link vertices, its element ends, nodes and link
ground points, and ``l`` lines in groups ``climb_elements_<kind>`` (each element's segment),
``climb_edges_<kind>`` (node to node) and ``climb_links_<kind>`` (node to ground point).
Coordinates are Z-up like NavJump (``up="z"``) or converted with (x, y, z) -> (x, z, -y) for
Y-up tools (``up="y"``); that is a rotation, so faces stay counter-clockwise seen from above
either way.
"""

from __future__ import annotations

import math
import pathlib
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

import numpy as np

from ..core.kinds import (
    CLIMB_EDGE_KINDS,
    CLIMB_ELEMENT_KINDS,
    CLIMB_LINK_KINDS,
    USER_AREA_FIRST,
)
from ..core.navmesh import LINK_KINDS, STANCE_NAMES, NavMesh
from ..core.navmesh_check import check_navmesh
from ..core.objio import obj_lines, open_obj_file
from ._common import atomic_write, polygon_rows, y_up_to_z_up, z_up_to_y_up

UP_AXES = ("z", "y")
# A link group's second name gives the area of its links: ``g links_custom area_water``.
AREA_GROUP = "area_"


def _check_up(up: str) -> None:
    if up not in UP_AXES:
        raise ValueError(f"up must be one of {', '.join(UP_AXES)}, got {up!r}")


def _fmt(points: np.ndarray) -> list[str]:
    # 9 significant digits (float32-exact, 0.1 mm up to 100 km from the origin), more
    # beyond, so that a level far from the origin keeps its sub-millimetre precision.
    far = float(np.abs(points).max()) if points.size else 0.0
    digits = 9 if far < 1e5 else min(17, 9 + math.ceil(math.log10(far / 1e5)))
    return [f"v {x:.{digits}g} {y:.{digits}g} {z:.{digits}g}\n" for x, y, z in points.tolist()]


def write_obj(nm: NavMesh, path, up: str = "z") -> pathlib.Path:
    """Write polygons (faces) and links (lines) to ``path`` atomically."""
    _check_up(up)
    nm = check_navmesh(nm)
    rows = polygon_rows(nm)
    conv = z_up_to_y_up if up == "y" else (lambda p: np.asarray(p, np.float64))
    n_verts = nm.vertices.shape[0]
    lines = [f"# NavJump navmesh: {n_verts} vertices, {len(rows)} polygons, "
             f"{nm.link_count} links; up={up}\n"]
    lines += _fmt(conv(nm.vertices))
    # Six vertices per link: start a, start b, end a, end b, start midpoint, end midpoint.
    if nm.link_count:
        mids_s = nm.link_start.mean(axis=1)
        mids_e = nm.link_end.mean(axis=1)
        link_pts = np.concatenate([nm.link_start, nm.link_end, mids_s[:, None], mids_e[:, None]],
                                  axis=1)
        lines += _fmt(conv(link_pts.reshape(-1, 3)))
    # climbing: element ends (2 per element), nodes, link ground points
    c_ends = np.asarray(nm.climb_element_ends, np.float64).reshape(-1, 3)
    c_nodes = np.asarray(nm.climb_node_position, np.float64).reshape(-1, 3)
    c_points = np.asarray(nm.climb_link_point, np.float64).reshape(-1, 3)
    climb_pts = np.concatenate([c_ends, c_nodes, c_points])
    if climb_pts.shape[0]:
        lines += _fmt(conv(climb_pts))
    stances = nm.polygon_stance.astype(np.int64)
    for s, name in enumerate(STANCE_NAMES):
        members = np.nonzero(stances == s)[0]
        if members.size == 0:
            continue
        lines.append(f"g stance_{name}\n")
        lines += ["f " + " ".join(str(i + 1) for i in rows[p].tolist()) + "\n" for p in members]
    odd = np.nonzero((stances < 0) | (stances >= len(STANCE_NAMES)))[0]
    if odd.size:
        lines.append("g stance_unknown\n")
        lines += ["f " + " ".join(str(i + 1) for i in rows[p].tolist()) + "\n" for p in odd]
    kinds = nm.link_kind.astype(np.int64)
    areas = link_areas(nm)
    for k, name in enumerate(LINK_KINDS):
        members = np.nonzero(kinds == k)[0]
        if members.size == 0:
            continue
        # links without an area first, then one group per area (in name order)
        by_area: dict[str, list[int]] = {}
        for i in members.tolist():
            by_area.setdefault(areas.get(i, ""), []).append(i)
        for area in sorted(by_area):
            tag = f" {AREA_GROUP}{quote(area, safe='')}" if area else ""
            lines.append(f"g links_{name}{tag}\n")
            for i in by_area[area]:
                b = n_verts + 6 * i + 1
                lines.append(f"l {b} {b + 1}\nl {b + 2} {b + 3}\nl {b + 4} {b + 5}\n")
    lines += _climb_lines(nm, n_verts + 6 * nm.link_count + 1, c_ends.shape[0],
                          c_nodes.shape[0])
    return atomic_write(path, lambda fh: fh.writelines(lines), binary=False)


def link_areas(nm: NavMesh) -> dict[int, str]:
    """The user area of each link that has one (``NavMesh.link_area`` from
    ``kinds.USER_AREA_FIRST`` on: hand-placed links), by link index."""
    ids = np.asarray(nm.link_area, np.int64)
    return {int(i): str(nm.area_names[ids[i]])
            for i in np.nonzero(ids >= USER_AREA_FIRST)[0].tolist()}


def group_area(group: str) -> str:
    """The area named in an OBJ group line (``g links_custom area_water`` -> "water";
    "" without one)."""
    for name in group.split():
        if name.startswith(AREA_GROUP):
            return unquote(name[len(AREA_GROUP):])
    return ""


def _climb_lines(nm: NavMesh, first: int, n_ends: int, n_nodes: int) -> list[str]:
    """``g climb_*`` groups of ``l`` lines; ``first``: the OBJ index of the first element
    end (then the nodes, then the link ground points)."""
    out: list[str] = []
    node0, point0 = first + n_ends, first + n_ends + n_nodes
    kind = np.asarray(nm.climb_element_kind, np.int64)
    for k, name in enumerate(CLIMB_ELEMENT_KINDS):
        members = np.nonzero(kind == k)[0]
        if members.size:
            out.append(f"g climb_elements_{name}\n")
            out += [f"l {first + 2 * e} {first + 2 * e + 1}\n" for e in members.tolist()]
    kind = np.asarray(nm.climb_edge_kind, np.int64)
    en = np.asarray(nm.climb_edge_nodes, np.int64).reshape(-1, 2) + node0
    for k, name in enumerate(CLIMB_EDGE_KINDS):
        members = np.nonzero(kind == k)[0]
        if members.size:
            out.append(f"g climb_edges_{name}\n")
            out += [f"l {a} {b}\n" for a, b in en[members].tolist()]
    kind = np.asarray(nm.climb_link_kind, np.int64)
    node = np.asarray(nm.climb_link_node, np.int64) + node0
    for k, name in enumerate(CLIMB_LINK_KINDS):
        members = np.nonzero(kind == k)[0]
        if members.size:
            out.append(f"g climb_links_{name}\n")
            out += [f"l {node[c]} {point0 + c}\n" for c in members.tolist()]
    return out


@dataclass
class ObjPolygons:
    """What :func:`read_obj_polygons` found, in NavJump's Z-up frame."""

    vertices: np.ndarray  # (V, 3) float64
    polygons: list[np.ndarray] = field(default_factory=list)  # 0-based vertex indices
    stances: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))  # -1 = none
    lines: list[tuple[str, np.ndarray]] = field(default_factory=list)  # (group, indices)

    def polygon_coords(self, i: int) -> np.ndarray:
        return self.vertices[self.polygons[i]]


def read_obj_polygons(path, up: str = "z") -> ObjPolygons:
    """Read vertices, faces (with their ``stance_*`` group) and lines back from an OBJ."""
    _check_up(up)
    verts: list[list[float]] = []
    faces: list[list[int]] = []
    stances: list[int] = []
    line_elems: list[tuple[str, list[int]]] = []
    group = ""

    def index(token: str, lineno: int) -> int:
        try:
            i = int(token.split("/")[0])
        except ValueError:
            raise ValueError(f"{path}:{lineno}: bad vertex reference {token!r}") from None
        j = i - 1 if i > 0 else len(verts) + i
        if i == 0 or not 0 <= j < len(verts):
            raise ValueError(f"{path}:{lineno}: vertex reference {i} is out of range "
                             f"(only {len(verts)} vertices so far)")
        return j

    with open_obj_file(path) as fh:
        for lineno, parts in obj_lines(fh):
            if parts[0].startswith("#"):
                continue
            tag, args = parts[0], parts[1:]
            raw = " ".join(parts)[:80]
            if tag == "v":
                try:
                    verts.append([float(a) for a in args[:3]])
                except ValueError:
                    raise ValueError(f"{path}:{lineno}: bad vertex {raw.strip()!r}") from None
                if len(verts[-1]) != 3:
                    raise ValueError(f"{path}:{lineno}: a vertex needs 3 coordinates")
            elif tag == "f":
                if len(args) < 3:
                    raise ValueError(f"{path}:{lineno}: a face needs at least 3 vertices")
                faces.append([index(a, lineno) for a in args])
                name = group[len("stance_"):] if group.startswith("stance_") else ""
                stances.append(STANCE_NAMES.index(name) if name in STANCE_NAMES else -1)
            elif tag == "l":
                line_elems.append((group, [index(a, lineno) for a in args]))
            elif tag == "g":
                group = " ".join(args)
    v = np.array(verts, dtype=np.float64).reshape(-1, 3)
    if up == "y":
        v = y_up_to_z_up(v)
    return ObjPolygons(
        vertices=v,
        polygons=[np.array(f, dtype=np.int32) for f in faces],
        stances=np.array(stances, dtype=np.int8),
        lines=[(g, np.array(ix, dtype=np.int32)) for g, ix in line_elems])
