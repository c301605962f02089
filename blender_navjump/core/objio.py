"""Read Wavefront OBJ geometry (positions and faces only) into numpy arrays."""

from __future__ import annotations

import math
import os
import stat
from typing import NamedTuple

import numpy as np

UP_AXES = ("y", "z")
# Largest OBJ file read (bytes): beyond it the Python-side parse alone needs tens of GiB.
MAX_OBJ_BYTES = 4 * 1024**3
# The up-axis hint: warn when at least this share of the surface faces another axis (and
# more of it than faces up).
UP_WARNING_SHARE = 0.5


class ObjScene(NamedTuple):
    """What :func:`read_obj_scene` found: Z-up arrays and warnings for the user."""

    vertices: np.ndarray  # (N, 3) float64, Z up
    triangles: np.ndarray  # (M, 3) int32
    warnings: list[str]
    # climb objects (name ending -ledge/-ladder/-pipe): (name, kind, points (K, 3) Z up),
    # in file order; their faces are not in ``triangles`` (see core/climb.py)
    climb: tuple = ()
    # modifier volumes (name ending -area-NAME or -nolinks): core.areas.Volume, file order
    volumes: tuple = ()
    # hand-placed links (name ending -link or -link-oneway; NAME-area-AREA-link: with the
    # area AREA): core.custom_links.CustomLink
    links: tuple = ()
    # (M,) bool per triangle, False on those of objects whose name ends in -noledges (their
    # walls never give found ledges: climb.add_climbing's ledge_mask); None: no such object
    ledge_mask: np.ndarray | None = None


def open_obj_file(path):
    """Open ``path`` for reading if it is a regular file of sane size; ValueError if not.

    A FIFO would block forever and ``/dev/zero`` never ends: only regular files are read.
    """
    try:
        info = os.stat(path)
    except OSError as exc:
        raise ValueError(f"{path}: cannot open ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{path}: not a regular file (a pipe, device or folder cannot be "
                         f"read as OBJ)")
    if info.st_size > MAX_OBJ_BYTES:
        raise ValueError(f"{path}: {info.st_size / 1024**3:.1f} GiB is larger than the "
                         f"{MAX_OBJ_BYTES / 1024**3:.0f} GiB an OBJ may be")
    try:
        return open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ValueError(f"{path}: cannot open ({exc.strerror or exc})") from None


def obj_lines(fh):
    """(line number, tokens) of each non-empty line; a trailing backslash continues a line."""
    pending: list[str] = []
    first = 0
    for lineno, line in enumerate(fh, 1):
        text = line.rstrip("\r\n")
        if not pending:
            first = lineno
        if text.endswith("\\"):
            pending.append(text[:-1])
            continue
        pending.append(text)
        tokens = " ".join(pending).split()  # any whitespace: spaces, tabs, indentation
        pending = []
        if tokens:
            yield first, tokens
    if pending:
        tokens = " ".join(pending).split()
        if tokens:
            yield first, tokens


def read_obj(path, up: str = "z"):
    """Return (vertices (N,3) float64, triangles (M,3) int32), Z up.

    Faces are fan-triangulated as Recast does; negative (relative) indices are supported.
    ``up="y"`` converts a Y-up file (Recast's samples) with (x, y, z) -> (x, -z, y).
    Raises ValueError with the file name and line on malformed input.
    """
    scene = read_obj_scene(path, up)
    return scene.vertices, scene.triangles


def read_obj_scene(path, up: str = "z") -> ObjScene:
    """:func:`read_obj`, plus warnings a front end should show (see :func:`up_axis_warning`)."""
    if up not in UP_AXES:
        raise ValueError(f"up: must be 'y' or 'z', got {up!r}")
    from .kinds import CLIMB_SUFFIXES, NOLEDGES_SUFFIX

    verts: list[list[float]] = []
    tris: list[tuple[int, int, int]] = []
    no_ledges: list[int] = []  # triangle count before and after each -noledges face run
    no_ledges_now = False
    climb: dict[str, tuple[int, list[int]]] = {}  # name: (kind, vertex indices)
    climb_now: tuple[int, list[int]] | None = None
    # hand-made scene parts: name: (what, faces (triangles) or lines (vertex pairs))
    special: dict[str, tuple[str, list]] = {}
    special_now: tuple[str, list] | None = None
    with open_obj_file(path) as fh:
        for lineno, tokens in obj_lines(fh):
            key = tokens[0]
            if key in ("o", "g"):
                name = " ".join(tokens[1:])
                kind = next((k for suf, k in CLIMB_SUFFIXES.items() if name.endswith(suf)),
                            None)
                climb_now = None if kind is None else climb.setdefault(name, (kind, []))
                what = _special_kind(name)
                special_now = None if what is None else special.setdefault(name, (what, []))
                no_ledges_now = name.endswith(NOLEDGES_SUFFIX)
            elif key == "l" and special_now is not None:
                idx = [_obj_index(tok, len(verts), path, lineno, "line") for tok in tokens[1:]]
                special_now[1].append(idx)
            elif key == "l" and climb_now is not None:
                for tok in tokens[1:]:
                    try:
                        i = int(tok.split("/", 1)[0])
                    except ValueError:
                        raise ValueError(f"{path}:{lineno}: bad line index {tok[:40]!r}") \
                            from None
                    i = len(verts) + i if i < 0 else i - 1
                    if not 0 <= i < len(verts):
                        raise ValueError(f"{path}:{lineno}: line index {tok[:40]} refers to "
                                         f"no vertex ({len(verts)} defined so far)")
                    climb_now[1].append(i)
            elif key == "v":
                try:
                    xyz = [float(tokens[1]), float(tokens[2]), float(tokens[3])]
                except (IndexError, ValueError):
                    raise ValueError(f"{path}:{lineno}: bad vertex line: "
                                     f"{' '.join(tokens)[:80]!r}") from None
                if not all(math.isfinite(c) for c in xyz):
                    raise ValueError(f"{path}:{lineno}: vertex {len(verts) + 1} has a NaN or "
                                     f"infinite coordinate: {' '.join(tokens)[:80]!r}")
                verts.append(xyz)
            elif key == "f":
                if len(tokens) < 4:
                    raise ValueError(f"{path}:{lineno}: a face needs at least 3 vertices, "
                                     f"got {len(tokens) - 1}: {' '.join(tokens)[:80]!r}")
                idx = []
                for tok in tokens[1:]:
                    head = tok.split("/", 1)[0]
                    try:
                        i = int(head)
                    except ValueError:
                        raise ValueError(f"{path}:{lineno}: bad face index {tok[:40]!r}") \
                            from None
                    if i < 0:
                        i = len(verts) + i
                    else:
                        i -= 1
                    if i < 0 or i >= len(verts):
                        raise ValueError(f"{path}:{lineno}: face index {head[:40]} refers to "
                                         f"no vertex ({len(verts)} defined so far)")
                    idx.append(i)
                if climb_now is not None:  # a climb element's face: not walkable geometry
                    climb_now[1].extend(idx)
                    continue
                if special_now is not None:  # a volume's or link's face: not walkable
                    special_now[1].extend((idx[0], idx[k - 1], idx[k])
                                          for k in range(2, len(idx)))
                    continue
                if no_ledges_now:
                    no_ledges += [len(tris), len(tris) + len(idx) - 2]
                for k in range(2, len(idx)):
                    tris.append((idx[0], idx[k - 1], idx[k]))
    v = np.array(verts, dtype=np.float64).reshape(-1, 3)
    t = np.array(tris, dtype=np.int32).reshape(-1, 3)
    if up == "y":
        v = np.stack([v[:, 0], -v[:, 2], v[:, 1]], axis=1)
    items = tuple((name, kind, v[np.array(idx, np.int64)].reshape(-1, 3))
                  for name, (kind, idx) in climb.items())
    volumes, links = _special_objects(special, v, path)
    if climb or special:  # vertices only these objects use are not part of the walkable scene
        only_climb = np.zeros(v.shape[0], np.bool_)
        for _kind, idx in climb.values():
            only_climb[np.array(idx, np.int64)] = True
        for _what, parts in special.values():
            for part in parts:
                only_climb[np.array(part, np.int64)] = True
        only_climb[t.ravel()] = False
        if only_climb.any():
            keep = ~only_climb
            remap = np.cumsum(keep) - 1
            v, t = v[keep], remap[t].astype(np.int32).reshape(-1, 3)
    warning = up_axis_warning(v, t, up)
    ledge_mask = None
    if no_ledges:
        ledge_mask = np.ones(t.shape[0], np.bool_)
        for a, b in zip(no_ledges[::2], no_ledges[1::2], strict=True):
            ledge_mask[a:b] = False
    return ObjScene(v, t, [f"{path}: {warning}"] if warning else [], items, volumes, links,
                    ledge_mask)


def _special_kind(name: str) -> str | None:
    """"link", "link-oneway" or "volume" for an object name with such a suffix, else None."""
    from .kinds import AREA_SUFFIX, LINK_ONEWAY_SUFFIX, LINK_SUFFIX, NOLINKS_SUFFIX

    if name.endswith(LINK_ONEWAY_SUFFIX):
        return "link-oneway"
    if name.endswith(LINK_SUFFIX):
        return "link"
    if name.endswith(NOLINKS_SUFFIX) or (AREA_SUFFIX in name
                                         and name.rsplit(AREA_SUFFIX, 1)[1]):
        return "volume"
    return None


def link_area(name: str) -> str:
    """The area of a hand-placed link object ``NAME-area-AREA-link`` (or ``-link-oneway``):
    AREA; "" for a link without one (docs/agents-areas-links.md)."""
    from .kinds import AREA_SUFFIX, LINK_ONEWAY_SUFFIX, LINK_SUFFIX

    for suffix in (LINK_ONEWAY_SUFFIX, LINK_SUFFIX):
        if name.endswith(suffix):
            stem = name[:-len(suffix)]
            if AREA_SUFFIX in stem:
                return stem.rsplit(AREA_SUFFIX, 1)[1]
            return ""
    return ""


def _obj_index(tok: str, n_verts: int, path, lineno: int, what: str) -> int:
    try:
        i = int(tok.split("/", 1)[0])
    except ValueError:
        raise ValueError(f"{path}:{lineno}: bad {what} index {tok[:40]!r}") from None
    i = n_verts + i if i < 0 else i - 1
    if not 0 <= i < n_verts:
        raise ValueError(f"{path}:{lineno}: {what} index {tok[:40]} refers to no vertex "
                         f"({n_verts} defined so far)")
    return i


def _special_objects(special: dict, v: np.ndarray, path) -> tuple[tuple, tuple]:
    """The volumes and hand-placed links of the file; ValueError naming the object."""
    from .areas import volume_from_name
    from .custom_links import CustomLink, check_link

    volumes, links = [], []
    for name, (what, items) in special.items():
        try:
            if what == "volume":
                if any(isinstance(it, list) for it in items):
                    raise ValueError(f"volume {name!r}: line elements in a volume; a "
                                     f"modifier volume is a closed mesh of faces")
                tri = np.array(items, np.int64).reshape(-1, 3)
                used = np.unique(tri)
                remap = np.full(v.shape[0], -1, np.int64)
                remap[used] = np.arange(used.size)
                volumes.append(volume_from_name(name, v[used], remap[tri]))
            else:
                lines = [it for it in items if isinstance(it, list)]
                if len(items) != 1 or len(lines) != 1 or len(lines[0]) != 2:
                    raise ValueError(f"link {name!r}: a link object holds exactly one line "
                                     f"element 'l a b' (two vertices); found "
                                     f"{len(lines)} element(s)")
                a, b = lines[0]
                links.append(check_link(CustomLink(name, v[a], v[b],
                                                   bidirectional=what == "link",
                                                   area=link_area(name))))
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    return tuple(volumes), tuple(links)


def up_axis_warning(vertices, triangles, up: str = "z") -> str | None:
    """A hint when the scene (Z up, as read with ``up``) seems to have another up axis.

    Floors and ceilings face up or down; when at least half the surface area faces along
    another axis, and more of it than faces along Z, the file was probably written with
    that axis up (a Y-up OBJ read with ``--up z`` gives a navmesh on its walls). Returns
    the message, or None.
    """
    v = np.asarray(vertices, np.float64)
    t = np.asarray(triangles, np.int64)
    if t.shape[0] == 0:
        return None
    with np.errstate(all="ignore"):
        n = np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]])
        area = np.linalg.norm(n, axis=1)
        keep = np.isfinite(area) & (area > 0)
        n, area = n[keep], area[keep]
        total = float(area.sum())
        if not (total > 0 and math.isfinite(total)):
            return None
        facing = np.abs(n) / area[:, None] >= math.cos(math.radians(45.0))
        share = (facing * area[:, None]).sum(axis=0) / total  # x, y, z
    axis = int(np.argmax(share[:2]))
    if share[axis] < UP_WARNING_SHARE or share[axis] <= share[2]:
        return None
    # the file's own name for that axis: reading with up="y" swapped file Y and Z
    file_axis = "xy"[axis] if up == "z" else "xz"[axis]
    hint = (f"if the file is {file_axis.upper()}-up, bake it with --up {file_axis}"
            if file_axis in UP_AXES else "NavJump reads Y-up or Z-up files only")
    return (f"{share[axis]:.0%} of the surface faces +-{'XY'[axis]} and only {share[2]:.0%} "
            f"faces up (+-Z) as read with --up {up}: the navmesh will be on the walls; "
            f"{hint}")
