"""The bake result: plain numpy arrays in world units (metres, Z up).

Polygons are vertex-index rows padded with -1, counter-clockwise seen from above (+Z).
``neighbours[p, i]`` is the polygon across the edge from vertex i to vertex i+1 of
polygon p, or -1 on the navmesh border.

Detail meshes follow Recast's layout: ``detail_meshes[p] = (vert_base, vert_count,
tri_base, tri_count)``; ``detail_triangles`` rows are (a, b, c, flags) with a, b, c indices
into ``detail_vertices[vert_base : vert_base + vert_count]``. The first ``n`` detail
vertices of polygon p are its own polygon vertices (same heights: refining them per
polygon could give a shared vertex two heights and crack the mesh).

``polygon_tile`` is empty for a solo bake; a tiled bake (``BakeSettings.tile_size``,
core/tiles.py) gives each polygon the index ``tx + ty * tiles_x`` of its tile. The tiles'
polygons form one mesh: vertices on tile edges are shared and ``neighbours`` cross them.

Links (jump links) are stored as parallel arrays, one row per link; segments are
``(2, 3)`` world points (segment start and end). See ``LINK_KINDS``.
"""

from __future__ import annotations

import io
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import IO

import numpy as np

from .kinds import (  # noqa: F401  (re-exported: the names every module reads here)
    AREA_CROUCH,
    AREA_NULL,
    AREA_PRONE,
    AREA_STAND,
    BUILTIN_AREAS,
    LINK_DROP,
    LINK_JUMP_ACROSS,
    LINK_JUMP_UP,
    LINK_KIND_AREAS,
    LINK_KINDS,
    STANCE_CROUCH,
    STANCE_NAMES,
    STANCE_PRONE,
    STANCE_STAND,
)

NAVMESH_FORMAT = "navjump-navmesh"
NAVMESH_VERSION = 1


def _ranks(counts: np.ndarray) -> np.ndarray:
    """0..c-1 for each count c, concatenated (the position of each item inside its group)."""
    counts = np.asarray(counts, np.int64)
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if counts.size else 0) - np.repeat(ends - counts, counts)


def empty_links() -> dict[str, np.ndarray]:
    """The link arrays of a NavMesh without links (the one definition of their dtypes)."""
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
        # area id of each link (index into area_names): its kind's built-in area
        # (kinds.LINK_KIND_AREAS) or, for a hand-placed link with one, a user area
        "link_area": np.zeros(0, np.uint8),
    }


def kind_link_areas(kinds) -> np.ndarray:
    """The built-in area id of links of these kinds (kinds.LINK_KIND_AREAS)."""
    return np.asarray(LINK_KIND_AREAS, np.uint8)[np.asarray(kinds, np.int64)]


def append_links(navmesh: NavMesh, kinds, starts, ends, bidirectional, start_polys,
                 end_polys, costs, areas=None) -> NavMesh:
    """A copy of ``navmesh`` with these links appended (hand-placed links, test meshes).

    ``kinds``: (L,) link kind ids; ``starts``/``ends``: (L, 2, 3) segments;
    ``bidirectional``: a bool or (L,) bools; ``start_polys``/``end_polys``: (L,) polygons
    under each segment; ``costs``: (L,); ``areas``: (L,) area ids (None: each kind's
    built-in area). Apex and length are derived from the segments.
    """
    import dataclasses

    kind = np.asarray(kinds, np.int8).reshape(-1)
    n = kind.shape[0]
    starts = np.asarray(starts, np.float64).reshape(n, 2, 3)
    ends = np.asarray(ends, np.float64).reshape(n, 2, 3)
    bidir = np.broadcast_to(np.asarray(bidirectional, np.bool_), (n,)).copy()
    length = np.linalg.norm(0.5 * (starts.sum(axis=1) - ends.sum(axis=1)), axis=1)
    apex = np.maximum(starts[:, :, 2].max(axis=1), ends[:, :, 2].max(axis=1))
    cat = np.concatenate
    return dataclasses.replace(
        navmesh,
        link_kind=cat([navmesh.link_kind, kind]),
        link_start=cat([navmesh.link_start, starts]),
        link_end=cat([navmesh.link_end, ends]),
        link_bidirectional=cat([navmesh.link_bidirectional, bidir]),
        link_start_poly=cat([navmesh.link_start_poly, np.asarray(start_polys, np.int32)]),
        link_end_poly=cat([navmesh.link_end_poly, np.asarray(end_polys, np.int32)]),
        link_apex=cat([navmesh.link_apex, apex]),
        link_length=cat([navmesh.link_length, length]),
        link_cost=cat([navmesh.link_cost, np.asarray(costs, np.float64).reshape(n)]),
        link_area=cat([navmesh.link_area, kind_link_areas(kind) if areas is None
                       else np.asarray(areas, np.uint8).reshape(n)]),
    )


def default_area_names() -> np.ndarray:
    """The area table of a NavMesh without user areas (kinds.BUILTIN_AREAS)."""
    return np.array(BUILTIN_AREAS, np.str_)


def default_area_cost() -> np.ndarray:
    return np.ones(len(BUILTIN_AREAS), np.float64)


# The climb graph (core/climb.py, docs/climbing.md): elements, nodes, edges and the links
# that join it to the polygons. Empty when the bake had no climbing; files without them load.


from .navmesh_check import CLIMB_ARRAYS  # noqa: E402  (the layout of the climb arrays)


def _empty_climb(name: str) -> np.ndarray:
    dtype, tail = CLIMB_ARRAYS[name]
    return np.zeros((0, *tail), dtype=dtype)


def _climb_field():
    def factory(name: str) -> Callable[[], np.ndarray]:
        return lambda: _empty_climb(name)

    return {name: field(default_factory=factory(name)) for name in CLIMB_ARRAYS}


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
    polygon_tile: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    link_kind: np.ndarray = field(default_factory=lambda: empty_links()["link_kind"])
    link_start: np.ndarray = field(default_factory=lambda: empty_links()["link_start"])
    link_end: np.ndarray = field(default_factory=lambda: empty_links()["link_end"])
    link_bidirectional: np.ndarray = field(
        default_factory=lambda: empty_links()["link_bidirectional"])
    link_start_poly: np.ndarray = field(default_factory=lambda: empty_links()["link_start_poly"])
    link_end_poly: np.ndarray = field(default_factory=lambda: empty_links()["link_end_poly"])
    link_apex: np.ndarray = field(default_factory=lambda: empty_links()["link_apex"])
    link_length: np.ndarray = field(default_factory=lambda: empty_links()["link_length"])
    link_cost: np.ndarray = field(default_factory=lambda: empty_links()["link_cost"])
    link_area: np.ndarray = field(default_factory=lambda: empty_links()["link_area"])
    # the area table (kinds.BUILTIN_AREAS, then user areas): name and default walking-cost
    # multiplier of each area id (``polygon_area``); a cost < 0 or inf = not walkable
    area_names: np.ndarray = field(default_factory=default_area_names)
    area_cost: np.ndarray = field(default_factory=default_area_cost)
    climb_element_kind: np.ndarray = _climb_field()["climb_element_kind"]
    climb_element_ends: np.ndarray = _climb_field()["climb_element_ends"]
    climb_element_abilities: np.ndarray = _climb_field()["climb_element_abilities"]
    climb_element_name: np.ndarray = _climb_field()["climb_element_name"]
    climb_node_position: np.ndarray = _climb_field()["climb_node_position"]
    climb_edge_nodes: np.ndarray = _climb_field()["climb_edge_nodes"]
    climb_edge_kind: np.ndarray = _climb_field()["climb_edge_kind"]
    climb_edge_element: np.ndarray = _climb_field()["climb_edge_element"]
    climb_edge_length: np.ndarray = _climb_field()["climb_edge_length"]
    climb_edge_abilities: np.ndarray = _climb_field()["climb_edge_abilities"]
    climb_edge_bidirectional: np.ndarray = _climb_field()["climb_edge_bidirectional"]
    climb_link_kind: np.ndarray = _climb_field()["climb_link_kind"]
    climb_link_node: np.ndarray = _climb_field()["climb_link_node"]
    climb_link_point: np.ndarray = _climb_field()["climb_link_point"]
    climb_link_poly: np.ndarray = _climb_field()["climb_link_poly"]
    climb_link_bidirectional: np.ndarray = _climb_field()["climb_link_bidirectional"]
    climb_link_length: np.ndarray = _climb_field()["climb_link_length"]
    climb_link_abilities: np.ndarray = _climb_field()["climb_link_abilities"]

    # ----------------------------------------------------------------- basics
    @property
    def polygon_count(self) -> int:
        return int(self.polygons.shape[0])

    @property
    def climb_element_count(self) -> int:
        return int(self.climb_element_kind.shape[0])

    @property
    def tiled(self) -> bool:
        """True for a tiled bake (``polygon_tile`` filled)."""
        return bool(self.polygon_tile.shape[0])

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
        if self.polygon_count == 0:
            return np.zeros(0)
        if self.detail_triangles.shape[0]:
            from .geometry import detail_surface_areas  # numba: imported when needed

            return detail_surface_areas(self.detail_meshes, self.detail_vertices,
                                        self.detail_triangles)
        t = self.polygon_triangle_coords()
        owner = np.repeat(np.arange(self.polygon_count),
                          np.maximum(self.polygon_vertex_count() - 2, 0))
        c = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
        # bincount adds in index order like np.add.at, many times faster
        return np.bincount(owner, 0.5 * np.linalg.norm(c, axis=1), minlength=self.polygon_count)

    def surface_area(self) -> float:
        """3D area of the walkable surface (detail triangles; polygons if none)."""
        return float(self.polygon_surface_areas().sum())

    def polygon_triangle_coords(self) -> np.ndarray:
        """Fan triangles of every polygon as a (T, 3, 3) array, polygon by polygon."""
        fans = np.maximum(self.polygon_vertex_count().astype(np.int64) - 2, 0)
        return self._fan_triangles(np.arange(self.polygon_count), fans)

    def surface_triangles(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-polygon surface triangles: ``(start (P+1,), tris (T, 3, 3))``.

        Polygon p owns ``tris[start[p]:start[p+1]]``: its detail triangles when it has a
        detail mesh, else a fan over its vertices. The one surface-triangle function: the
        queries, the links and the overlay all use it.
        """
        n_poly = self.polygon_count
        fans = np.maximum(self.polygon_vertex_count().astype(np.int64) - 2, 0)
        dm = np.asarray(self.detail_meshes, np.int64).reshape(-1, 4)
        have_detail = (dm.shape[0] == n_poly and self.detail_triangles.shape[0] > 0
                       and self.detail_vertices.shape[0] > 0)
        n_detail = dm[:, 3] if have_detail else np.zeros(n_poly, np.int64)
        use_detail = n_detail > 0
        counts = np.where(use_detail, n_detail, fans)
        start = np.zeros(n_poly + 1, np.int64)
        np.cumsum(counts, out=start[1:])
        tris = np.empty((int(start[-1]), 3, 3), np.float64)
        dpoly = np.nonzero(use_detail)[0]
        if dpoly.size:
            cnt = n_detail[dpoly]
            local = _ranks(cnt)
            rows = np.repeat(dm[dpoly, 2], cnt) + local
            idx = np.asarray(self.detail_triangles, np.int64)[rows, :3] \
                + np.repeat(dm[dpoly, 0], cnt)[:, None]
            tris[np.repeat(start[dpoly], cnt) + local] = \
                np.asarray(self.detail_vertices, np.float64)[idx]
        fpoly = np.nonzero(~use_detail)[0]
        if fpoly.size:
            cnt = fans[fpoly]
            tris[np.repeat(start[fpoly], cnt) + _ranks(cnt)] = self._fan_triangles(fpoly, cnt)
        return start, tris

    def _fan_triangles(self, polys: np.ndarray, fans: np.ndarray) -> np.ndarray:
        """Fan triangles (v0, vi, vi+1) of the given polygons, ``fans[k]`` for ``polys[k]``."""
        fans = np.asarray(fans, np.int64)
        owner = np.repeat(np.asarray(polys, np.int64), fans)
        i = _ranks(fans) + 1
        rows = np.asarray(self.polygons, np.int64)
        corner = np.stack([rows[owner, 0], rows[owner, i], rows[owner, i + 1]], axis=1)
        return np.asarray(self.vertices, np.float64)[corner].reshape(-1, 3, 3)

    # ------------------------------------------------------------ save / load
    def array_fields(self) -> list[str]:
        return self._array_names()

    def save(self, path: str | os.PathLike[str], compress: bool = True) -> None:
        """Save losslessly to a .npz file (arrays bit-exact, settings and stats as JSON);
        ``compress`` False stores the arrays uncompressed (faster; :meth:`load` reads both)."""
        arrays = {name: getattr(self, name) for name in self.array_fields()}
        meta = json.dumps({"format": NAVMESH_FORMAT, "version": NAVMESH_VERSION,
                           "settings": self.settings, "stats": self.stats})
        buf = io.BytesIO()
        (np.savez_compressed if compress else np.savez)(
            buf, __meta__=np.frombuffer(meta.encode(), dtype=np.uint8), **arrays)
        with open(path, "wb") as fh:
            fh.write(buf.getvalue())

    @classmethod
    def load(cls, path: str | os.PathLike[str] | IO[bytes], check: bool = True) -> NavMesh:
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
        required = [f.name for f in fields(cls) if f.name in cls._array_names()
                    and not f.name.startswith(("link_", "climb_", "area_"))
                    and f.name != "polygon_tile"]
        missing = [name for name in required if name not in arrays]
        if missing:
            raise ValueError(f"{where}: array(s) missing: {', '.join(missing)}")
        links = [name for name in cls._array_names() if name.startswith("link_")]
        if "link_kind" in arrays and "link_area" not in arrays:
            # written before links had areas: each link has its kind's built-in area
            kinds = np.asarray(arrays["link_kind"])
            arrays["link_area"] = (kind_link_areas(kinds) if kinds.size and kinds.min() >= 0
                                   and kinds.max() < len(LINK_KIND_AREAS)
                                   else np.zeros(kinds.shape, np.uint8))
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
            if a.dtype.kind != b.dtype.kind or (a.dtype != b.dtype and a.dtype.kind != "U") \
                    or a.shape != b.shape or not np.array_equal(a, b):
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
