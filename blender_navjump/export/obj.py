"""Wavefront OBJ export of a NavMesh, for eyeballing in any 3D tool.

Polygons are faces grouped by stance (``g stance_stand`` ...), in stance order and, inside a
group, in polygon order. Each link adds six vertices and three ``l`` lines in a
``g links_<kind>`` group: the start segment, the end segment, and the line from the start
segment's midpoint to the end segment's midpoint. Coordinates are Z-up like NavJump
(``up="z"``) or converted with (x, y, z) -> (x, z, -y) for Y-up tools (``up="y"``); that is
a rotation, so faces stay counter-clockwise seen from above either way.
"""

from __future__ import annotations

import math
import pathlib
from dataclasses import dataclass, field

import numpy as np

from ..core.navmesh import LINK_KINDS, STANCE_NAMES, NavMesh
from ..core.navmesh_check import check_navmesh
from ..core.objio import obj_lines, open_obj_file
from ._common import atomic_write, polygon_rows, y_up_to_z_up, z_up_to_y_up

UP_AXES = ("z", "y")


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
    for k, name in enumerate(LINK_KINDS):
        members = np.nonzero(kinds == k)[0]
        if members.size == 0:
            continue
        lines.append(f"g links_{name}\n")
        for i in members.tolist():
            b = n_verts + 6 * i + 1
            lines.append(f"l {b} {b + 1}\nl {b + 2} {b + 3}\nl {b + 4} {b + 5}\n")
    return atomic_write(path, lambda fh: fh.writelines(lines), binary=False)


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
