"""The bake result: plain numpy arrays in world units (metres, Z up).

Polygons are vertex-index rows padded with -1, counter-clockwise seen from above (+Z).
``neighbours[p, i]`` is the polygon across the edge from vertex i to vertex i+1 of
polygon p, or -1 on the navmesh border.

Detail meshes follow Recast's layout: ``detail_meshes[p] = (vert_base, vert_count,
tri_base, tri_count)``; ``detail_triangles`` rows are (a, b, c, flags) with a, b, c indices
into ``detail_vertices[vert_base : vert_base + vert_count]``. The first ``n`` detail
vertices of polygon p are its own polygon vertices (same heights: refining them per
polygon could give a shared vertex two heights and crack the mesh).

Links (jump links) are stored as parallel arrays, one row per link; segments are
``(2, 3)`` world points (segment start and end). See ``LINK_KINDS``.
"""

from __future__ import annotations

import io
import json
import os
import stat
from dataclasses import dataclass, field, fields

import numpy as np

STANCE_NAMES = ("stand", "crouch", "prone")
STANCE_STAND, STANCE_CROUCH, STANCE_PRONE = 0, 1, 2
# Area ids carried by compact-heightfield spans and polygons: 0 is "not walkable".
AREA_NULL = 0
AREA_STAND, AREA_CROUCH, AREA_PRONE = 1, 2, 3

LINK_KINDS = ("drop", "jump_across", "jump_up")
LINK_DROP, LINK_JUMP_ACROSS, LINK_JUMP_UP = 0, 1, 2

NAVMESH_FORMAT = "navjump-navmesh"
NAVMESH_VERSION = 1


def _empty_links() -> dict:
    return {
        "link_kind": np.zeros(0, np.int8),
        "link_start": np.zeros((0, 2, 3), np.float64),
        "link_end": np.zeros((0, 2, 3), np.float64),
        "link_bidirectional": np.zeros(0, np.bool_),
        "link_start_poly": np.zeros(0, np.int32),
        "link_end_poly": np.zeros(0, np.int32),
        "link_apex": np.zeros(0, np.float64),
        "link_length": np.zeros(0, np.float64),
        "link_cost": np.zeros(0, np.float64),
    }


@dataclass
class NavMesh:
    vertices: np.ndarray  # (V, 3) float64 world
    polygons: np.ndarray  # (P, nvp) int32, -1 padded, CCW from above
    neighbours: np.ndarray  # (P, nvp) int32, -1 = border
    polygon_area: np.ndarray  # (P,) uint8 area id
    polygon_region: np.ndarray  # (P,) int32 region id
    polygon_stance: np.ndarray  # (P,) int8, index into STANCE_NAMES
    detail_meshes: np.ndarray  # (P, 4) int32
    detail_vertices: np.ndarray  # (Dv, 3) float64 world
    detail_triangles: np.ndarray  # (Dt, 4) int32
    settings: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)
    link_kind: np.ndarray = field(default_factory=lambda: _empty_links()["link_kind"])
    link_start: np.ndarray = field(default_factory=lambda: _empty_links()["link_start"])
    link_end: np.ndarray = field(default_factory=lambda: _empty_links()["link_end"])
    link_bidirectional: np.ndarray = field(
        default_factory=lambda: _empty_links()["link_bidirectional"])
    link_start_poly: np.ndarray = field(default_factory=lambda: _empty_links()["link_start_poly"])
    link_end_poly: np.ndarray = field(default_factory=lambda: _empty_links()["link_end_poly"])
    link_apex: np.ndarray = field(default_factory=lambda: _empty_links()["link_apex"])
    link_length: np.ndarray = field(default_factory=lambda: _empty_links()["link_length"])
    link_cost: np.ndarray = field(default_factory=lambda: _empty_links()["link_cost"])

    # ----------------------------------------------------------------- basics
    @property
    def polygon_count(self) -> int:
        return int(self.polygons.shape[0])

    @property
    def link_count(self) -> int:
        return int(self.link_kind.shape[0])

    def polygon_vertex_count(self) -> np.ndarray:
        return (self.polygons >= 0).sum(axis=1).astype(np.int32)

    def polygon_vertices(self, p: int) -> np.ndarray:
        row = self.polygons[p]
        return self.vertices[row[row >= 0]]

    def detail_triangle_coords(self) -> np.ndarray:
        """All detail triangles as a (T, 3, 3) array of world points."""
        counts = self.detail_meshes[:, 3]
        base = np.repeat(self.detail_meshes[:, 0], counts)
        return self.detail_vertices[self.detail_triangles[:, :3] + base[:, None]]

    def polygon_surface_areas(self) -> np.ndarray:
        """3D area of each polygon's walkable surface (detail triangles; polygon if none)."""
        out = np.zeros(self.polygon_count)
        if self.polygon_count == 0:
            return out
        if self.detail_triangles.shape[0]:
            owner = np.repeat(np.arange(self.polygon_count), self.detail_meshes[:, 3])
            t = self.detail_triangle_coords()
        else:
            t = self.polygon_triangle_coords()
            owner = np.repeat(np.arange(self.polygon_count),
                              np.maximum(self.polygon_vertex_count() - 2, 0))
        c = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
        np.add.at(out, owner, 0.5 * np.linalg.norm(c, axis=1))
        return out

    def surface_area(self) -> float:
        """3D area of the walkable surface (detail triangles; polygons if none)."""
        return float(self.polygon_surface_areas().sum())

    def polygon_triangle_coords(self) -> np.ndarray:
        out = []
        for p in range(self.polygon_count):
            v = self.polygon_vertices(p)
            for i in range(1, len(v) - 1):
                out.append((v[0], v[i], v[i + 1]))
        return np.array(out, dtype=np.float64).reshape(-1, 3, 3)

    # ------------------------------------------------------------ save / load
    def array_fields(self) -> list[str]:
        return self._array_names()

    def save(self, path) -> None:
        """Save losslessly to a .npz file (arrays bit-exact, settings and stats as JSON)."""
        arrays = {name: getattr(self, name) for name in self.array_fields()}
        meta = json.dumps({"format": NAVMESH_FORMAT, "version": NAVMESH_VERSION,
                           "settings": self.settings, "stats": self.stats})
        buf = io.BytesIO()
        np.savez_compressed(buf, __meta__=np.frombuffer(meta.encode(), dtype=np.uint8),
                            **arrays)
        with open(path, "wb") as fh:
            fh.write(buf.getvalue())

    @classmethod
    def load(cls, path, check: bool = True) -> NavMesh:
        """Read a :meth:`save` archive; ValueError naming the file and the problem (the
        data is checked as every loaded navmesh is, see ``core.navmesh_check``).

        ``check=False`` skips only that last check (the archive's structure is still
        verified): for a viewer that shows what it can of damaged data and names the
        invalid parts itself (the Blender overlay); path queries and exporters check the
        NavMesh they are given anyway."""
        from .navmesh_check import check_navmesh

        where = str(path)
        if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__"):
            try:
                mode = os.stat(path).st_mode
            except OSError as exc:
                raise ValueError(f"{where}: cannot read ({exc.strerror or exc})") from None
            if not stat.S_ISREG(mode):
                raise ValueError(f"{where}: not a regular file")
        try:
            data = np.load(path, allow_pickle=False)
        except Exception as exc:  # zipfile/pickle errors: a corrupt or foreign file
            raise ValueError(f"{where}: not a NavJump navmesh file ({exc})") from None
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError(f"{where}: not a NavJump navmesh file (a bare .npy array)")
        with data:
            try:
                names = set(data.files)
                if "__meta__" not in names:
                    raise ValueError(f"{where}: not a NavJump navmesh file (no metadata)")
                meta = json.loads(bytes(np.asarray(data["__meta__"], np.uint8)).decode())
                arrays = {name: data[name] for name in cls._array_names() if name in names}
            except ValueError as exc:
                if str(exc).startswith(where):
                    raise
                raise ValueError(f"{where}: not a NavJump navmesh file ({exc})") from None
            except Exception as exc:  # a damaged archive raises anything
                # (zipfile: BadZipFile, NotImplementedError, RuntimeError "encrypted";
                # zlib.error; EOFError; MemoryError for an absurd array header ...)
                raise ValueError(f"{where}: not a NavJump navmesh file "
                                 f"({type(exc).__name__}: {str(exc)[:200]})") from None
        if not isinstance(meta, dict) or meta.get("format") != NAVMESH_FORMAT:
            raise ValueError(f"{where}: not a NavJump navmesh file")
        if meta.get("version") != NAVMESH_VERSION:
            raise ValueError(f"{where}: navmesh version {meta.get('version')!r} is not "
                             f"supported (this NavJump reads version {NAVMESH_VERSION})")
        for key in ("settings", "stats"):
            if not isinstance(meta.get(key), dict):
                raise ValueError(f"{where}: the metadata has no '{key}' dictionary")
        required = [f.name for f in fields(cls)
                    if f.name in cls._array_names() and not f.name.startswith("link_")]
        missing = [name for name in required if name not in arrays]
        if missing:
            raise ValueError(f"{where}: array(s) missing: {', '.join(missing)}")
        links = [name for name in cls._array_names() if name.startswith("link_")]
        have = [name for name in links if name in arrays]
        if have and len(have) != len(links):
            raise ValueError(f"{where}: link array(s) missing: "
                             f"{', '.join(n for n in links if n not in arrays)}")
        nm = cls(settings=meta["settings"], stats=meta["stats"], **arrays)
        return check_navmesh(nm, where) if check else nm

    @classmethod
    def _array_names(cls) -> list[str]:
        return [f.name for f in fields(cls) if f.name not in ("settings", "stats")]

    def equals(self, other: NavMesh) -> bool:
        """True when every array is identical (dtype, shape and values) and meta equal."""
        for name in self.array_fields():
            a, b = getattr(self, name), getattr(other, name)
            if a.dtype != b.dtype or a.shape != b.shape or not np.array_equal(a, b):
                return False
        return self.settings == other.settings


def empty_navmesh(nvp: int = 6) -> NavMesh:
    return NavMesh(
        vertices=np.zeros((0, 3), np.float64),
        polygons=np.zeros((0, nvp), np.int32),
        neighbours=np.zeros((0, nvp), np.int32),
        polygon_area=np.zeros(0, np.uint8),
        polygon_region=np.zeros(0, np.int32),
        polygon_stance=np.zeros(0, np.int8),
        detail_meshes=np.zeros((0, 4), np.int32),
        detail_vertices=np.zeros((0, 3), np.float64),
        detail_triangles=np.zeros((0, 4), np.int32),
    )
