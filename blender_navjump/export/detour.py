"""Detour navigation mesh binaries: a single-tile ``DNAV`` blob and RecastDemo's ``MSET`` file.

Everything is little-endian with 32-bit polygon references (Detour built without
``DT_POLYREF64``, as RecastDemo and the ``@recast-navigation`` WASM build are).

``DNAV`` tile data (``dtMeshHeader`` version 7, then each section padded to 4 bytes):
verts, polys (ground polygons then one 2-vertex polygon per off-mesh connection), links
(zeroed; Detour fills them when the tile is added), detail meshes, detail vertices (only
the ones beyond each polygon's own vertices), detail triangles, BV tree, off-mesh
connections. It is what ``dtNavMesh::init(data, size, DT_TILE_FREE_DATA)`` ("init solo")
and ``dtNavMesh::addTile`` take.

``MSET`` (what RecastDemo's "Load" and ``importNavMesh`` of ``@recast-navigation/core`` read):
``{int magic 'MSET', int version 1, int numTiles, dtNavMeshParams}`` then per tile
``{dtTileRef tileRef, int dataSize}`` and the ``DNAV`` data. :func:`write_detour` writes
this form, because it carries the navmesh parameters a loader needs.

Frame: Detour is Y-up; points map (x, y, z) -> (x, z, -y). That is a rotation, so NavJump's
polygons (counter-clockwise seen from +Z) arrive counter-clockwise seen from +Y, which is
the order Detour's portal and funnel code expects (the edge from vertex j to j+1 has the
polygon on its left seen from above; ``neis[j]`` is the polygon across that edge).

Areas and flags, for ``dtQueryFilter``: stance polygons get area 1/2/3 (stand, crouch,
prone) and flag 0x01/0x02/0x04; a polygon in a user area (modifier volume) gets that area's
id instead (8 on, ``NavMesh.area_names``; the flag stays its stance's); links become
off-mesh connections with area 4/5/6/7 (drop, jump_across, jump_up, custom:
``NavMesh.link_area``; a hand-placed link with an area of its own gets that area's id) and
flag 0x08/0x10/0x20/0x40 (always its kind's). A link wider than the agent becomes several
point connections about one agent diameter apart along its segments; each has the agent
radius and the link's direction, and its ``userId`` is the link index.
"""

from __future__ import annotations

import math
import pathlib
import struct
import warnings
from dataclasses import dataclass

import numpy as np

from ..core.kinds import LINK_KINDS, MAX_AREAS, USER_AREA_FIRST
from ..core.navmesh import NavMesh
from ..core.navmesh_check import check_navmesh
from ._common import atomic_write, check_float32_reach, polygon_rows, z_up_to_y_up


def _fourcc(text: str) -> int:
    a, b, c, d = (ord(ch) for ch in text)
    return a << 24 | b << 16 | c << 8 | d


DT_NAVMESH_MAGIC = _fourcc("DNAV")
DT_NAVMESH_VERSION = 7
NAVMESHSET_MAGIC = _fourcc("MSET")
NAVMESHSET_VERSION = 1
DT_VERTS_PER_POLYGON = 6
DT_NULL_LINK = 0xFFFFFFFF
DT_EXT_LINK = 0x8000
DT_POLYTYPE_GROUND = 0
DT_POLYTYPE_OFFMESH_CONNECTION = 1
DT_OFFMESH_CON_BIDIR = 1
DT_DETAIL_EDGE_BOUNDARY = 0x01
# Off-mesh connection "side" for an end point inside the same tile.
DT_SIDE_INTERNAL = 0xFF
# Each off-mesh connection is a polygon with two vertices: a tile's 16-bit indices bound them.
MAX_OFFMESH_CONNECTIONS = 0xFFFF // 2

STANCE_AREAS = (1, 2, 3)  # stand, crouch, prone
STANCE_FLAGS = (0x01, 0x02, 0x04)
LINK_FLAGS = (0x08, 0x10, 0x20, 0x40)
# Climbing (docs/climbing.md): one one-way connection per way through the climb graph
# (core.climb.climb_transits), area 63 (the last 6-bit id; user areas must stay below it),
# flag 0x80, userId CLIMB_USER_ID + the transit's row.
CLIMB_AREA = MAX_AREAS - 1
CLIMB_FLAG = 0x80
CLIMB_USER_ID = 0x40000000

HEADER_DTYPE = np.dtype([
    ("magic", "<i4"), ("version", "<i4"), ("x", "<i4"), ("y", "<i4"), ("layer", "<i4"),
    ("userId", "<u4"), ("polyCount", "<i4"), ("vertCount", "<i4"), ("maxLinkCount", "<i4"),
    ("detailMeshCount", "<i4"), ("detailVertCount", "<i4"), ("detailTriCount", "<i4"),
    ("bvNodeCount", "<i4"), ("offMeshConCount", "<i4"), ("offMeshBase", "<i4"),
    ("walkableHeight", "<f4"), ("walkableRadius", "<f4"), ("walkableClimb", "<f4"),
    ("bmin", "<f4", (3,)), ("bmax", "<f4", (3,)), ("bvQuantFactor", "<f4")])
POLY_DTYPE = np.dtype([
    ("firstLink", "<u4"), ("verts", "<u2", (DT_VERTS_PER_POLYGON,)),
    ("neis", "<u2", (DT_VERTS_PER_POLYGON,)), ("flags", "<u2"), ("vertCount", "u1"),
    ("areaAndtype", "u1")])
LINK_DTYPE = np.dtype([("ref", "<u4"), ("next", "<u4"), ("edge", "u1"), ("side", "u1"),
                       ("bmin", "u1"), ("bmax", "u1")])
# Two uint32 then two uint8: the C struct is padded to 12 bytes.
POLY_DETAIL_DTYPE = np.dtype({"names": ["vertBase", "triBase", "vertCount", "triCount"],
                              "formats": ["<u4", "<u4", "u1", "u1"],
                              "offsets": [0, 4, 8, 9], "itemsize": 12})
BVNODE_DTYPE = np.dtype([("bmin", "<u2", (3,)), ("bmax", "<u2", (3,)), ("i", "<i4")])
OFFMESH_DTYPE = np.dtype([("pos", "<f4", (6,)), ("rad", "<f4"), ("poly", "<u2"),
                          ("flags", "u1"), ("side", "u1"), ("userId", "<u4")])
NAVMESH_PARAMS_DTYPE = np.dtype([("orig", "<f4", (3,)), ("tileWidth", "<f4"),
                                 ("tileHeight", "<f4"), ("maxTiles", "<i4"),
                                 ("maxPolys", "<i4")])
# sizeof() of the C structs (32-bit dtPolyRef).
assert (HEADER_DTYPE.itemsize, POLY_DTYPE.itemsize, LINK_DTYPE.itemsize,
        POLY_DETAIL_DTYPE.itemsize, BVNODE_DTYPE.itemsize, OFFMESH_DTYPE.itemsize,
        NAVMESH_PARAMS_DTYPE.itemsize) == (100, 32, 12, 12, 16, 36, 28)

_MSET_HEADER = struct.Struct("<iii")
_MSET_TILE_HEADER = struct.Struct("<Ii")


def _align4(n: int) -> int:
    return (n + 3) & ~3


def _setting(nm: NavMesh, name: str, default: float) -> float:
    value = nm.settings.get(name, default) if isinstance(nm.settings, dict) else default
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"settings {name}: {value!r} is not a number")
    return float(value)


def _walkable_height(nm: NavMesh) -> float:
    """The clearance the bake kept (``BakeSettings.walkable_height_world``: agent height, or
    the lowest enabled stance), from the navmesh's settings over the defaults."""
    from ..core.settings import BakeSettings

    d = BakeSettings()
    s = nm.settings if isinstance(nm.settings, dict) else {}

    def flag(name: str) -> bool:
        return bool(s.get(name, getattr(d, name)))

    return BakeSettings(
        agent_height=_setting(nm, "agent_height", d.agent_height),
        stand_height=_setting(nm, "stand_height", d.stand_height),
        crouch_height=_setting(nm, "crouch_height", d.crouch_height),
        prone_height=_setting(nm, "prone_height", d.prone_height),
        multi_stance=flag("multi_stance"), stand_enabled=flag("stand_enabled"),
        crouch_enabled=flag("crouch_enabled"), prone_enabled=flag("prone_enabled"),
    ).walkable_height_world()


def agent_radius(nm: NavMesh) -> float:
    """Radius of the off-mesh connections: the agent radius, or a cell if that is 0."""
    r = _setting(nm, "agent_radius", 0.6)
    if r == 0:
        r = _setting(nm, "cell_size", 0.3)
    if not (math.isfinite(r) and r > 0):
        raise ValueError(f"settings agent_radius {r!r} (or cell_size) is not a positive "
                         f"number: off-mesh connections need a radius")
    return r


# --------------------------------------------------------------- off-mesh connections
@dataclass
class OffMeshConnections:
    """Point connections made from the links (Z-up world points)."""

    link: np.ndarray  # (C,) int64 index of the link each connection comes from (-1: climb)
    start: np.ndarray  # (C, 3) float64
    end: np.ndarray  # (C, 3) float64
    radius: float
    bidirectional: np.ndarray  # (C,) bool
    area: np.ndarray  # (C,) uint8
    flags: np.ndarray  # (C,) uint16
    user_id: np.ndarray  # (C,) uint32: the link index, or CLIMB_USER_ID + transit row

    @property
    def count(self) -> int:
        return int(self.link.shape[0])


def offmesh_connections(nm: NavMesh, climbing: bool = True) -> OffMeshConnections:
    """Split each link into point connections spaced about one agent diameter apart; then
    (``climbing``) one per way through the climb graph (``CLIMB_AREA``, ``CLIMB_FLAG``).

    A link of width w gets n = max(1, round(w / diameter)) connections at the centres of n
    equal parts of its start segment, paired with the same fractions of its end segment.
    """
    radius = agent_radius(nm)
    counts = np.ones(nm.link_count, dtype=np.int64)
    if nm.link_count:
        width = np.linalg.norm(nm.link_start[:, 1] - nm.link_start[:, 0], axis=1)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            want = np.maximum(1.0, np.rint(width / (2.0 * radius)))
        # count before allocating: a tiny radius would ask for billions of connections
        total = float(want.sum())
        if not math.isfinite(total) or total > MAX_OFFMESH_CONNECTIONS:
            i = int(np.argmax(want))
            raise ValueError(
                f"the links would become {total:.3g} off-mesh connections (link {i}: "
                f"{width[i]:.3g} m wide at agent_radius {radius:.3g} m gives {want[i]:.3g}); "
                f"a Detour tile holds at most {MAX_OFFMESH_CONNECTIONS}: bake with a larger "
                f"agent_radius")
        counts = want.astype(np.int64)
    link = np.repeat(np.arange(nm.link_count), counts)
    part = np.arange(link.size) - np.repeat(np.cumsum(counts) - counts, counts)
    t = ((part + 0.5) / np.repeat(counts, counts))[:, None]
    s, e = nm.link_start[link], nm.link_end[link]
    kind = nm.link_kind[link].astype(np.int64)
    if kind.size and (kind.min() < 0 or kind.max() >= len(LINK_KINDS)):
        raise ValueError(f"link kind {int(kind[(kind < 0) | (kind >= len(LINK_KINDS))][0])} has "
                         f"no Detour "
                         f"area; known kinds are 0..{len(LINK_KINDS) - 1}")
    cons = OffMeshConnections(
        link=link,
        start=s[:, 0] + t * (s[:, 1] - s[:, 0]),
        end=e[:, 0] + t * (e[:, 1] - e[:, 0]),
        radius=radius,
        bidirectional=nm.link_bidirectional[link].astype(bool),
        area=np.asarray(nm.link_area, np.uint8)[link],
        flags=np.array(LINK_FLAGS, np.uint16)[kind],
        user_id=link.astype(np.uint32))
    if not climbing or not nm.climb_link_kind.shape[0]:
        return cons
    from ..core.climb import climb_transits

    used = np.concatenate([np.asarray(nm.polygon_area), np.asarray(nm.link_area)])
    if used.size and int(used.max()) >= CLIMB_AREA:
        raise ValueError(f"user area id {int(used.max())} collides with the climbing "
                         f"connections' Detour area {CLIMB_AREA}: use fewer user areas")
    tr = climb_transits(nm)
    return _with_climbs(cons, tr.start, tr.end, np.arange(tr.cost.shape[0]))


def _with_climbs(cons: OffMeshConnections, start: np.ndarray, end: np.ndarray,
                 row: np.ndarray) -> OffMeshConnections:
    """``cons`` and then one climbing connection per way (transit ``row``)."""
    n = int(row.shape[0])
    if cons.count + n > MAX_OFFMESH_CONNECTIONS:
        raise ValueError(f"{cons.count} link and {n} climbing connections do not fit a "
                         f"Detour tile (at most {MAX_OFFMESH_CONNECTIONS} off-mesh "
                         f"connections)")
    return OffMeshConnections(
        link=np.concatenate([cons.link, np.full(n, -1, np.int64)]),
        start=np.concatenate([cons.start.reshape(-1, 3), start]),
        end=np.concatenate([cons.end.reshape(-1, 3), end]),
        radius=cons.radius,
        bidirectional=np.concatenate([cons.bidirectional, np.zeros(n, bool)]),
        area=np.concatenate([cons.area, np.full(n, CLIMB_AREA, np.uint8)]),
        flags=np.concatenate([cons.flags, np.full(n, CLIMB_FLAG, np.uint16)]),
        user_id=np.concatenate([cons.user_id, (CLIMB_USER_ID + row).astype(np.uint32)]))


# ------------------------------------------------------------------------------ tile
@dataclass
class DetourTile:
    """One ``DNAV`` tile as numpy arrays laid out exactly like Detour's structs."""

    header: np.ndarray  # HEADER_DTYPE, shape ()
    verts: np.ndarray  # (vertCount, 3) float32
    polys: np.ndarray  # POLY_DTYPE
    links: np.ndarray  # LINK_DTYPE
    detail_meshes: np.ndarray  # POLY_DETAIL_DTYPE
    detail_verts: np.ndarray  # (detailVertCount, 3) float32
    detail_tris: np.ndarray  # (detailTriCount, 4) uint8
    bv_tree: np.ndarray  # BVNODE_DTYPE
    offmesh_cons: np.ndarray  # OFFMESH_DTYPE

    def sections(self) -> list[np.ndarray]:
        return [self.header.reshape(1), self.verts, self.polys, self.links,
                self.detail_meshes, self.detail_verts, self.detail_tris, self.bv_tree,
                self.offmesh_cons]

    def to_bytes(self) -> bytes:
        out = bytearray()
        for arr in self.sections():
            data = np.ascontiguousarray(arr).tobytes()
            out += data + b"\0" * (_align4(len(data)) - len(data))
        return bytes(out)

    def poly_area(self) -> np.ndarray:
        return self.polys["areaAndtype"] & 0x3F

    def poly_type(self) -> np.ndarray:
        return self.polys["areaAndtype"] >> 6


def _detail_edge_flags(tri_pts: np.ndarray, poly_pts: np.ndarray, poly_n: np.ndarray):
    """Detour's per-edge "on the polygon boundary" bits for detail triangles.

    tri_pts (T, 3, 3) and poly_pts (T, 6, 3) in Y-up; an edge is on the boundary when both
    its ends lie within 1 mm (xz) of the same polygon edge, as Recast decides it.
    """
    thr = 1e-3
    a = poly_pts[:, :, [0, 2]]
    b = np.roll(a, -1, axis=1)
    # Close each polygon: the edge after the last real vertex goes back to vertex 0.
    last = poly_n - 1
    rows = np.arange(a.shape[0])
    b[rows, last] = a[rows, 0]
    valid = np.arange(a.shape[1])[None, :] < poly_n[:, None]
    ab = b - a
    len2 = np.maximum((ab ** 2).sum(-1), 1e-30)

    def near(p):  # (T, 2) -> (T, 6): p within thr of polygon edge j
        d = p[:, None, :] - a
        t = np.clip((d * ab).sum(-1) / len2, 0.0, 1.0)
        q = a + t[..., None] * ab
        return ((p[:, None, :] - q) ** 2).sum(-1) < thr * thr

    pts = tri_pts[:, :, [0, 2]]
    near_v = [near(pts[:, k]) & valid for k in range(3)]
    flags = np.zeros(tri_pts.shape[0], np.uint8)
    for e in range(3):
        on_edge = (near_v[e] & near_v[(e + 1) % 3]).any(axis=1)
        flags |= (on_edge.astype(np.uint8) * DT_DETAIL_EDGE_BOUNDARY) << (2 * e)
    return flags


def _build_bv_tree(item_min: np.ndarray, item_max: np.ndarray) -> np.ndarray:
    """Detour's BV tree over quantised polygon boxes, depth first with escape indices.

    Each internal node splits its items in half along the longest axis of their union
    (sorted by box minimum); a leaf holds one polygon (i >= 0); an internal node's i is minus
    the number of nodes in its subtree, so a query that misses it skips the whole subtree.
    """
    # Plain tuples: far faster than numpy for the many tiny ranges near the leaves.
    items = [(*lo, *hi, i) for i, (lo, hi) in
             enumerate(zip(item_min.tolist(), item_max.tolist(), strict=True))]
    out: list[tuple[tuple, int]] = []

    def subdivide(its: list[tuple]) -> None:
        me = len(out)
        out.append(((), 0))
        if len(its) == 1:
            out[me] = (its[0][:6], its[0][6])
            return
        box = tuple(min(t[k] for t in its) for k in range(3)) + \
            tuple(max(t[k] for t in its) for k in range(3, 6))
        extent = [box[k + 3] - box[k] for k in range(3)]
        axis = extent.index(max(extent))
        its = sorted(its, key=lambda t: t[axis])
        mid = len(its) // 2
        subdivide(its[:mid])
        subdivide(its[mid:])
        out[me] = (box, -(len(out) - me))

    if items:
        subdivide(items)
    nodes = np.zeros(len(out), BVNODE_DTYPE)
    if out:
        boxes = np.array([box for box, _ in out], np.int64).reshape(-1, 6)
        nodes["bmin"] = boxes[:, :3]
        nodes["bmax"] = boxes[:, 3:]
        nodes["i"] = [i for _, i in out]
    return nodes


@dataclass
class TilePlace:
    """Where a tile of a multi-tile set sits: Detour's tile coordinates, the tile's box
    (Y-up x and z), the Detour side (0..7) across each polygon edge that leaves the tile
    (-1 inside or on the level's border), and the polygons incoming off-mesh connections
    from neighbour tiles may need links for."""

    x: int
    y: int
    box_min: np.ndarray  # (x, z) Y-up
    box_max: np.ndarray
    ext_side: np.ndarray  # (P, nvp) int
    incoming: int = 0
    # climbing connections starting in this tile (ways through the whole bake's climb
    # graph, core.climb.climb_transits): Z-up ends and the transit rows (their userIds)
    climb_start: np.ndarray | None = None  # (K, 3)
    climb_end: np.ndarray | None = None  # (K, 3)
    climb_row: np.ndarray | None = None  # (K,) int


def classify_side(points_yup: np.ndarray, box_min: np.ndarray, box_max: np.ndarray):
    """Detour's side of each point (Y-up) outside a tile box: 0 = +x, then counter-clockwise
    seen from +Y in steps of 45 degrees (2 = +z, 4 = -x, 6 = -z); 0xFF inside."""
    x, z = points_yup[:, 0], points_yup[:, 2]
    px, pz = x >= box_max[0], z >= box_max[1]
    mx, mz = x < box_min[0], z < box_min[1]
    dx = px.astype(int) - mx.astype(int)
    dz = pz.astype(int) - mz.astype(int)
    table = {(1, 0): 0, (1, 1): 1, (0, 1): 2, (-1, 1): 3, (-1, 0): 4, (-1, -1): 5,
             (0, -1): 6, (1, -1): 7, (0, 0): DT_SIDE_INTERNAL}
    return np.array([table[(a, b)] for a, b in zip(dx.tolist(), dz.tolist(), strict=True)],
                    np.uint8)


def build_detour_tile(nm: NavMesh, place: TilePlace | None = None) -> DetourTile:
    """Lay out ``nm`` as one Detour tile. Raises ValueError when Detour cannot hold it.

    ``place`` (multi-tile sets, :func:`build_detour_tiles`): nm is one tile's polygons;
    edges to neighbour tiles become Detour portals and the header carries the tile's place.
    """
    nm = check_navmesh(nm)
    check_float32_reach(nm, "Detour")
    rows = polygon_rows(nm)
    n_ground = len(rows)
    if n_ground == 0:
        raise ValueError("the navmesh has no polygons: there is nothing to export to Detour")
    counts = np.array([len(r) for r in rows], dtype=np.int64)
    if counts.max() > DT_VERTS_PER_POLYGON or counts.min() < 3:
        bad = int(np.nonzero((counts > DT_VERTS_PER_POLYGON) | (counts < 3))[0][0])
        raise ValueError(f"polygon {bad} has {counts[bad]} vertices; Detour polygons have "
                         f"3..{DT_VERTS_PER_POLYGON} (bake with verts_per_poly <= 6)")
    if n_ground > DT_EXT_LINK - 1:
        raise ValueError(f"{n_ground} polygons do not fit one Detour tile (at most "
                         f"{DT_EXT_LINK - 1}); bake in tiles (set tile_size, e.g. "
                         f"--set tile_size=128) for a multi-tile Detour set")
    stance = nm.polygon_stance.astype(np.int64)
    if stance.min() < 0 or stance.max() >= len(STANCE_AREAS):
        raise ValueError(f"polygon stance {int(stance[(stance < 0) | (stance >= 3)][0])} "
                         f"has no Detour area")
    # climbing connections: a single tile's own; a tile set's sub-navmeshes have no climb
    # graph of their own, build_detour_tiles gives each tile the ways starting in it
    cons = offmesh_connections(nm, climbing=place is None)
    if place is not None and place.climb_row is not None and place.climb_row.size:
        assert place.climb_start is not None and place.climb_end is not None  # with the rows
        cons = _with_climbs(cons, place.climb_start, place.climb_end, place.climb_row)
    n_verts = nm.vertices.shape[0]
    total_verts = n_verts + 2 * cons.count
    total_polys = n_ground + cons.count
    if total_verts > 0xFFFF or total_polys > 0xFFFF:
        raise ValueError(f"{total_verts} vertices and {total_polys} polygons (with off-mesh "
                         f"connections) do not fit one Detour tile (at most 65535 each)")

    ground_verts = z_up_to_y_up(nm.vertices).astype(np.float32)
    con_verts = np.stack([z_up_to_y_up(cons.start), z_up_to_y_up(cons.end)], axis=1)
    verts = np.concatenate([ground_verts, con_verts.reshape(-1, 3).astype(np.float32)])

    polys = np.zeros(total_polys, POLY_DTYPE)
    polys["firstLink"] = DT_NULL_LINK
    # polygon_rows() checked the padding is trailing, so the first `counts` columns are real.
    valid = np.arange(DT_VERTS_PER_POLYGON)[None, :] < counts[:, None]
    width = min(nm.polygons.shape[1], DT_VERTS_PER_POLYGON)
    padded = np.zeros((n_ground, DT_VERTS_PER_POLYGON), np.int64)
    padded[:, :width] = nm.polygons[:, :width]
    padded[~valid] = 0
    nb = np.full((n_ground, DT_VERTS_PER_POLYGON), -1, np.int64)
    nb[:, :width] = nm.neighbours[:, :width]
    nb[~valid] = -1
    if (nb >= n_ground).any() or (nb < -1).any():
        p = int(np.nonzero(((nb >= n_ground) | (nb < -1)).any(axis=1))[0][0])
        raise ValueError(f"polygon {p} has neighbours {nm.neighbours[p].tolist()} outside "
                         f"0..{n_ground - 1}")
    neis = nb + 1  # 0 = border, index + 1 = internal neighbour
    n_portals = 0
    if place is not None:
        side = np.full((n_ground, DT_VERTS_PER_POLYGON), -1, np.int64)
        side[:, :width] = place.ext_side[:, :width]
        portal = valid & (nb < 0) & (side >= 0)
        neis = np.where(portal, DT_EXT_LINK | np.maximum(side, 0), neis)
        n_portals = int(portal.sum())
    polys["verts"][:n_ground] = padded
    polys["neis"][:n_ground] = neis
    polys["vertCount"][:n_ground] = counts
    polys["flags"][:n_ground] = np.array(STANCE_FLAGS, np.uint16)[stance]
    # a polygon in a user area (modifier volume) has that area's id (kinds.USER_AREA_FIRST
    # on, the ids of NavMesh.area_names); the others the area of their stance
    area = np.where(nm.polygon_area >= USER_AREA_FIRST, nm.polygon_area,
                    np.array(STANCE_AREAS, np.uint8)[stance]).astype(np.uint8)
    polys["areaAndtype"][:n_ground] = area | DT_POLYTYPE_GROUND << 6
    con_ids = np.arange(cons.count)
    polys["verts"][n_ground:, 0] = n_verts + 2 * con_ids
    polys["verts"][n_ground:, 1] = n_verts + 2 * con_ids + 1
    polys["vertCount"][n_ground:] = 2
    polys["flags"][n_ground:] = cons.flags
    polys["areaAndtype"][n_ground:] = cons.area | DT_POLYTYPE_OFFMESH_CONNECTION << 6

    # Detour's builder: one link per polygon edge, two more per portal edge (links to the
    # neighbour tiles), two per off-mesh end; and room for connections landing here from
    # neighbour tiles.
    n_links = int(counts.sum()) + 2 * n_portals + 4 * cons.count
    if place is not None:
        n_links += 2 * place.incoming
    links = np.zeros(n_links, LINK_DTYPE)

    dmeshes, dverts, dtris = _detail(nm, padded, counts, ground_verts)

    offmesh = np.zeros(cons.count, OFFMESH_DTYPE)
    offmesh["pos"] = con_verts.reshape(-1, 6)
    offmesh["rad"] = cons.radius
    offmesh["poly"] = n_ground + con_ids
    offmesh["flags"] = np.where(cons.bidirectional, DT_OFFMESH_CON_BIDIR, 0)
    offmesh["side"] = DT_SIDE_INTERNAL
    if place is not None and cons.count:
        offmesh["side"] = classify_side(con_verts[:, 1].astype(np.float64),
                                        place.box_min, place.box_max)
    offmesh["userId"] = cons.user_id

    # Polygon boxes over polygon and detail vertices; the tile box is their union.
    poly_pts = ground_verts[padded].astype(np.float64)
    item_min = np.where(valid[..., None], poly_pts, np.inf).min(axis=1)
    item_max = np.where(valid[..., None], poly_pts, -np.inf).max(axis=1)
    if dverts.shape[0]:
        owner = np.repeat(np.arange(n_ground), dmeshes["vertCount"].astype(np.int64))
        np.minimum.at(item_min, owner, dverts.astype(np.float64))
        np.maximum.at(item_max, owner, dverts.astype(np.float64))
    bmin = item_min.min(axis=0).astype(np.float32)
    bmax = item_max.max(axis=0).astype(np.float32)
    if place is not None:
        # the tile's own box across (Detour classifies off-mesh ends and finds the
        # neighbours' portals by it); the polygons' height range
        bmin[0], bmin[2] = np.minimum(place.box_min, bmin[[0, 2]])
        bmax[0], bmax[2] = np.maximum(place.box_max, bmax[[0, 2]])
    extent = float((bmax.astype(np.float64) - bmin).max())
    # Recast quantises by 1 / cell size; finer if the tile would not fit 16 bits.
    cell = _setting(nm, "cell_size", 0.3)
    quant = 1.0 / (cell if cell > 0 else 0.3)
    if extent * quant > 0xFFFE:
        quant = 0xFFFE / extent
    quant = float(np.float32(quant))
    lo = np.floor((item_min - bmin) * quant)
    hi = np.ceil((item_max - bmin) * quant)
    bv = _build_bv_tree(np.clip(lo, 0, 0xFFFF).astype(np.uint16),
                        np.clip(hi, 0, 0xFFFF).astype(np.uint16))

    header = np.zeros((), HEADER_DTYPE)
    header["magic"] = DT_NAVMESH_MAGIC
    header["version"] = DT_NAVMESH_VERSION
    header["polyCount"] = total_polys
    header["vertCount"] = total_verts
    header["maxLinkCount"] = links.shape[0]
    header["detailMeshCount"] = n_ground
    header["detailVertCount"] = dverts.shape[0]
    header["detailTriCount"] = dtris.shape[0]
    header["bvNodeCount"] = bv.shape[0]
    header["offMeshConCount"] = cons.count
    header["offMeshBase"] = n_ground
    header["walkableHeight"] = _walkable_height(nm)
    header["walkableRadius"] = _setting(nm, "agent_radius", 0.6)
    header["walkableClimb"] = _setting(nm, "agent_max_climb", 0.9)
    if place is not None:
        header["x"], header["y"] = place.x, place.y
    header["bmin"] = bmin
    header["bmax"] = bmax
    header["bvQuantFactor"] = quant
    return DetourTile(header=header, verts=verts, polys=polys, links=links,
                      detail_meshes=dmeshes, detail_verts=dverts, detail_tris=dtris,
                      bv_tree=bv, offmesh_cons=offmesh)


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(start, start + length)`` for each pair."""
    lengths = lengths.astype(np.int64)
    offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.repeat(starts.astype(np.int64), lengths) + offsets


def _detail(nm: NavMesh, padded: np.ndarray, counts: np.ndarray, ground_verts: np.ndarray):
    """Detail meshes in Detour's form: extra vertices only, triangles with edge flags.

    A polygon without usable detail (none baked, or no triangles) gets a fan, as Detour's
    builder does when it is given no detail mesh at all.
    """
    n_ground = padded.shape[0]
    if nm.detail_meshes.shape[0] == n_ground:
        vb, nvd, tb, nt = nm.detail_meshes.astype(np.int64).T
    else:
        vb = nvd = tb = nt = np.zeros(n_ground, np.int64)
    use = (nvd >= counts) & (nt > 0)
    bad = np.nonzero(use & ((nvd - counts > 0xFF) | (nt > 0xFF)))[0]
    if bad.size:
        p = int(bad[0])
        raise ValueError(f"detail mesh of polygon {p} has {nvd[p] - counts[p]} extra vertices "
                         f"and {nt[p]} triangles; Detour allows 255 of each")
    # The first vertices of a polygon's detail mesh must be the polygon's own.
    own_n = np.where(use, counts, 0)
    own = nm.detail_vertices[_ranges(vb, own_n), :2]
    poly_xy = nm.vertices[padded[np.repeat(np.arange(n_ground), own_n),
                                 _ranges(np.zeros(n_ground), own_n)], :2]
    if own.size and np.abs(own - poly_xy).max() > 1e-3:
        p = int(np.repeat(np.arange(n_ground), own_n)[np.abs(own - poly_xy).max(1) > 1e-3][0])
        raise ValueError(f"detail mesh of polygon {p} does not start with the polygon's own "
                         f"vertices")
    extra_n = np.where(use, nvd - counts, 0)
    tri_n = np.where(use, nt, counts - 2)
    dmeshes = np.zeros(n_ground, POLY_DETAIL_DTYPE)
    dmeshes["vertBase"] = np.cumsum(extra_n) - extra_n
    dmeshes["triBase"] = np.cumsum(tri_n) - tri_n
    dmeshes["vertCount"] = extra_n
    dmeshes["triCount"] = tri_n
    dverts = z_up_to_y_up(nm.detail_vertices[_ranges(vb + counts, extra_n)]).astype(np.float32)

    owner = np.repeat(np.arange(n_ground), tri_n)
    k = _ranges(np.zeros(n_ground), tri_n)  # triangle number within its polygon
    fan = np.stack([np.zeros_like(k), k + 1, k + 2], axis=1)
    src = np.where(use[owner], tb[owner] + k, 0)
    # (with no detail triangles at all every polygon is a fan: nothing to index)
    detail = nm.detail_triangles[src, :3].astype(np.int64) \
        if src.size and nm.detail_triangles.shape[0] else fan
    local = np.where(use[owner][:, None], detail, fan)
    outside = ((local < 0) | (local >= np.where(use, nvd, counts)[owner][:, None])).any(axis=1)
    if outside.any():
        p = int(owner[outside][0])
        raise ValueError(f"detail triangle of polygon {p} uses a vertex outside its "
                         f"{nvd[p]} detail vertices")

    # Resolve each corner: index < n is a polygon vertex, else one of the extra vertices.
    n_of = counts[owner][:, None]
    poly_idx = padded[owner[:, None], np.minimum(local, DT_VERTS_PER_POLYGON - 1)]
    extra_idx = dmeshes["vertBase"].astype(np.int64)[owner][:, None] + local - n_of
    all_pts = np.concatenate([ground_verts, dverts]).astype(np.float64)
    tri_pts = all_pts[np.where(local < n_of, poly_idx, ground_verts.shape[0] + extra_idx)]
    poly_pts = ground_verts[padded[owner]].astype(np.float64)
    dtris = np.zeros((local.shape[0], 4), np.uint8)
    dtris[:, :3] = local
    dtris[:, 3] = _detail_edge_flags(tri_pts, poly_pts, counts[owner])
    return dmeshes, dverts, dtris


def detour_tile_bytes(nm: NavMesh) -> bytes:
    """The ``DNAV`` tile data for ``nm`` (for ``dtNavMesh::init`` / ``addTile``)."""
    return build_detour_tile(nm).to_bytes()


def write_detour_tile(nm: NavMesh, path) -> pathlib.Path:
    """Write the raw ``DNAV`` tile data to ``path`` atomically."""
    data = detour_tile_bytes(nm)
    return atomic_write(path, lambda fh: fh.write(data))


def parse_detour_tile(data: bytes, where: str = "Detour tile") -> DetourTile:
    """Split ``DNAV`` tile data into its sections; ValueError when it is not one."""
    if len(data) < HEADER_DTYPE.itemsize:
        raise ValueError(f"{where}: {len(data)} bytes is too short for a dtMeshHeader")
    header = np.frombuffer(data, HEADER_DTYPE, count=1)[0].copy()
    if int(header["magic"]) != DT_NAVMESH_MAGIC:
        raise ValueError(f"{where}: not Detour tile data (no 'DNAV' magic)")
    if int(header["version"]) != DT_NAVMESH_VERSION:
        raise ValueError(f"{where}: Detour tile version {int(header['version'])}, expected "
                         f"{DT_NAVMESH_VERSION}")
    layout = [
        ("verts", np.dtype("<f4"), int(header["vertCount"]) * 3),
        ("polys", POLY_DTYPE, int(header["polyCount"])),
        ("links", LINK_DTYPE, int(header["maxLinkCount"])),
        ("detail_meshes", POLY_DETAIL_DTYPE, int(header["detailMeshCount"])),
        ("detail_verts", np.dtype("<f4"), int(header["detailVertCount"]) * 3),
        ("detail_tris", np.dtype("u1"), int(header["detailTriCount"]) * 4),
        ("bv_tree", BVNODE_DTYPE, int(header["bvNodeCount"])),
        ("offmesh_cons", OFFMESH_DTYPE, int(header["offMeshConCount"])),
    ]
    offset = _align4(HEADER_DTYPE.itemsize)
    out = {}
    for name, dtype, count in layout:
        size = dtype.itemsize * count
        if count < 0 or offset + size > len(data):
            raise ValueError(f"{where}: section '{name}' ({count} items) runs past the end of "
                             f"the {len(data)} bytes")
        out[name] = np.frombuffer(data, dtype, count=count, offset=offset).copy()
        offset += _align4(size)
    return DetourTile(header=header, verts=out["verts"].reshape(-1, 3),
                      polys=out["polys"], links=out["links"],
                      detail_meshes=out["detail_meshes"],
                      detail_verts=out["detail_verts"].reshape(-1, 3),
                      detail_tris=out["detail_tris"].reshape(-1, 4),
                      bv_tree=out["bv_tree"], offmesh_cons=out["offmesh_cons"])


# ------------------------------------------------------------------------- MSET sets
def solo_params(tile: DetourTile) -> np.ndarray:
    """``dtNavMeshParams`` as ``dtNavMesh::init(data, ...)`` derives them for one tile."""
    h = tile.header
    params = np.zeros((), NAVMESH_PARAMS_DTYPE)
    params["orig"] = h["bmin"]
    params["tileWidth"] = max(np.float32(h["bmax"][0] - h["bmin"][0]), np.float32(1e-3))
    params["tileHeight"] = max(np.float32(h["bmax"][2] - h["bmin"][2]), np.float32(1e-3))
    params["maxTiles"] = 1
    params["maxPolys"] = h["polyCount"]
    return params


def first_tile_ref(params: np.ndarray) -> int:
    """The reference Detour gives the first tile: salt 1, tile 0 (32-bit references)."""
    tile_bits = (int(params["maxTiles"]) - 1).bit_length()  # ilog2(nextPow2(maxTiles))
    poly_bits = (int(params["maxPolys"]) - 1).bit_length()
    if 32 - tile_bits - poly_bits < 10:
        raise ValueError("too many tiles and polygons for 32-bit Detour references")
    return 1 << (poly_bits + tile_bits)


def navmesh_set_bytes(nm: NavMesh) -> bytes:
    """RecastDemo's ``MSET`` file holding ``nm`` as one tile."""
    tile = build_detour_tile(nm)
    data = tile.to_bytes()
    params = solo_params(tile)
    return (_MSET_HEADER.pack(NAVMESHSET_MAGIC, NAVMESHSET_VERSION, 1) + params.tobytes()
            + _MSET_TILE_HEADER.pack(first_tile_ref(params), len(data)) + data)


# 32-bit polygon references: salt, tile and polygon bits; Detour wants 10 bits of salt.
DT_REF_BITS = 32
DT_MIN_SALT_BITS = 10


def ref_bits(max_tiles: int, max_polys: int) -> tuple[int, int]:
    """(tile bits, polygon bits) Detour derives from ``maxTiles``/``maxPolys``; ValueError
    naming the setting to change when they leave fewer than 10 bits of salt."""
    tile_bits = max(int(max_tiles) - 1, 0).bit_length()
    poly_bits = max(int(max_polys) - 1, 0).bit_length()
    if DT_REF_BITS - tile_bits - poly_bits < DT_MIN_SALT_BITS:
        raise ValueError(
            f"{max_tiles} tiles ({tile_bits} bits) and up to {max_polys} polygons per tile "
            f"({poly_bits} bits) exceed the {DT_REF_BITS - DT_MIN_SALT_BITS} bits of a 32-bit "
            f"Detour reference; change tile_size (larger tiles if the tiles are too many, "
            f"smaller if a tile has too many polygons)")
    return tile_bits, poly_bits


def build_detour_tiles(nm: NavMesh) -> tuple[np.ndarray, list[tuple[int, DetourTile]]]:
    """A tiled bake as Detour tiles: ``(dtNavMeshParams, [(tile ref, tile), ...])``.

    One tile per NavJump tile with polygons; a link goes to the tile of its start polygon
    and may land in that tile or one of its 8 neighbours (Detour's rule); a link reaching
    further is refused, naming ``tile_size``. Climbing: one connection per way through the
    climb graph, in the tile of its start point; a way ending further than the neighbouring
    tile cannot be split (its middle is off the navmesh), so it is left out and reported
    with a :class:`DetourExportWarning`."""
    from ..core.tiles import sub_navmesh

    nm = check_navmesh(nm)
    grid = nm.stats.get("tile_grid") if isinstance(nm.stats, dict) else None
    if not nm.tiled or not isinstance(grid, dict):
        raise ValueError("the navmesh has no tile grid (stats['tile_grid']): bake it with "
                         "tile_size, and export it from the bake or its .npz file")
    ox, oy = (float(c) for c in grid["origin"])
    size, cs = int(grid["tile_size"]), float(grid["cell_size"])
    width = size * cs

    def line(i: int) -> float:  # a tile line's coordinate, as the bake placed its vertices
        return (i * size) * cs
    tiles_x, tiles_y = (int(c) for c in grid["tiles"])
    tile = nm.polygon_tile.astype(np.int64)
    ids = np.unique(tile)
    tx, ty = ids % tiles_x, ids // tiles_x
    # Detour's z is NavJump's -y: Detour tile row 0 is NavJump's last row
    z0 = -(oy + line(tiles_y))
    # links: in the tile of their start polygon, landing at most one tile away
    link_tile = tile[nm.link_start_poly] if nm.link_count else np.zeros(0, np.int64)
    if nm.link_count:
        end_tile = tile[nm.link_end_poly]
        far = (np.abs(end_tile % tiles_x - link_tile % tiles_x) > 1) | \
            (np.abs(end_tile // tiles_x - link_tile // tiles_x) > 1)
        if far.any():
            i = int(np.nonzero(far)[0][0])
            raise ValueError(
                f"{int(far.sum())} link(s) reach beyond the neighbouring tile (link {i}: "
                f"tile {int(link_tile[i])} to tile {int(end_tile[i])}); Detour joins "
                f"off-mesh connections only to adjacent tiles: raise tile_size above "
                f"max_jump_distance / cell_size")
    nvp = nm.polygons.shape[1]
    n_valid = (nm.polygons >= 0).sum(axis=1)
    cons = offmesh_connections(nm, climbing=False) if nm.link_count else None
    climb_tile, climb_end_tile, climb = _tiled_climbs(nm, tile, tiles_x)
    subs = []
    for k, x, y in zip(ids.tolist(), tx.tolist(), ty.tolist(), strict=True):
        sel = np.nonzero(tile == k)[0]
        sub = sub_navmesh(nm, sel)
        mine = np.nonzero(link_tile == k)[0]
        for name in ("link_kind", "link_start", "link_end", "link_bidirectional",
                     "link_apex", "link_length", "link_cost", "link_area"):
            setattr(sub, name, getattr(nm, name)[mine])
        pos = np.full(nm.polygon_count, -1, np.int64)
        pos[sel] = np.arange(sel.size)
        # an end outside the tile: Detour finds its polygon itself; any local index will do
        sub.link_start_poly = pos[nm.link_start_poly[mine]].astype(np.int32)
        sub.link_end_poly = np.maximum(pos[nm.link_end_poly[mine]], 0).astype(np.int32)
        # the side of each edge that leaves the tile: the neighbour's tile direction
        nb = nm.neighbours[sel]
        slot = np.arange(nvp)[None, :] < n_valid[sel][:, None]
        other = np.where((nb >= 0) & slot, tile[np.maximum(nb, 0)], k)
        dx = other % tiles_x - x
        dy = other // tiles_x - y
        side = np.full(nb.shape, -1, np.int64)
        side[(dx == 1) & (dy == 0)] = 0
        side[(dx == -1) & (dy == 0)] = 4
        side[(dx == 0) & (dy == 1)] = 6  # NavJump +y is Detour -z
        side[(dx == 0) & (dy == -1)] = 2
        sub.neighbours = np.where(other != k, -1, sub.neighbours).astype(np.int32)
        incoming = 0
        if cons is not None:
            incoming = int((tile[nm.link_end_poly[cons.link]] == k).sum())
        incoming += int((climb_end_tile == k).sum())
        here = np.nonzero(climb_tile == k)[0]
        place = TilePlace(
            x=x, y=tiles_y - 1 - y,
            box_min=np.array([ox + line(x), -(oy + line(y + 1))]),
            box_max=np.array([ox + line(x + 1), -(oy + line(y))]),
            ext_side=side, incoming=incoming, climb_start=climb.start[here],
            climb_end=climb.end[here], climb_row=here)
        subs.append(build_detour_tile(sub, place))
    max_polys = max(int(t.header["polyCount"]) for t in subs)
    n_tiles = tiles_x * tiles_y
    tile_bits, poly_bits = ref_bits(n_tiles, max_polys)
    params = np.zeros((), NAVMESH_PARAMS_DTYPE)
    params["orig"] = (ox, 0.0, z0)
    params["tileWidth"] = width
    params["tileHeight"] = width
    params["maxTiles"] = 1 << tile_bits
    params["maxPolys"] = 1 << poly_bits
    out = []
    for i, t in enumerate(subs):
        # salt 1 and the tile's slot (Detour fills slots in order when given the ref)
        out.append(((1 << (poly_bits + tile_bits)) | (i << poly_bits), t))
    return params, out


class DetourExportWarning(UserWarning):
    """Something of the bake the Detour export had to leave out (the export goes on)."""


def _tiled_climbs(nm: NavMesh, tile: np.ndarray, tiles_x: int):
    """Start and end tiles of the ways through the climb graph (-1 for a way left out:
    it ends beyond the neighbouring tile, reported with a :class:`DetourExportWarning`)
    and the transits themselves (empty when the bake has no climbing)."""
    from ..core.climb import ClimbTransits, climb_transits

    if not nm.climb_link_kind.shape[0]:
        z = np.zeros(0, np.int64)
        tr = ClimbTransits(start=np.zeros((0, 3)), end=np.zeros((0, 3)), entry_link=z,
                           exit_link=z, cost=np.zeros(0))
        return z, z, tr
    used = np.concatenate([np.asarray(nm.polygon_area), np.asarray(nm.link_area)])
    if used.size and int(used.max()) >= CLIMB_AREA:
        raise ValueError(f"user area id {int(used.max())} collides with the climbing "
                         f"connections' Detour area {CLIMB_AREA}: use fewer user areas")
    tr = climb_transits(nm)
    a = tile[nm.climb_link_poly[tr.entry_link]].astype(np.int64)
    b = tile[nm.climb_link_poly[tr.exit_link]].astype(np.int64)
    far = (np.abs(a % tiles_x - b % tiles_x) > 1) | (np.abs(a // tiles_x - b // tiles_x) > 1)
    if far.any():
        rows = np.nonzero(far)[0]
        i = int(rows[0])
        span = float(np.linalg.norm(tr.end[i, :2] - tr.start[i, :2]))
        warnings.warn(DetourExportWarning(
            f"Detour export: {rows.size} climbing way(s) left out, they end beyond the "
            f"neighbouring tile (way {i}: tile {int(a[i])} to tile {int(b[i])}, {span:.3g} m "
            f"across; rows {rows[:8].tolist()}); Detour joins off-mesh connections only to "
            f"adjacent tiles: raise tile_size to keep them"), stacklevel=3)
    return np.where(far, -1, a), np.where(far, -1, b), tr


def tiled_navmesh_set_bytes(nm: NavMesh) -> bytes:
    """RecastDemo's ``MSET`` file with one ``DNAV`` per tile of a tiled bake."""
    params, tiles = build_detour_tiles(nm)
    parts = [_MSET_HEADER.pack(NAVMESHSET_MAGIC, NAVMESHSET_VERSION, len(tiles)),
             params.tobytes()]
    for ref, t in tiles:
        data = t.to_bytes()
        parts += [_MSET_TILE_HEADER.pack(ref, len(data)), data]
    return b"".join(parts)


def write_detour_navmesh_set(nm: NavMesh, path) -> pathlib.Path:
    """Write an ``MSET`` navmesh set file to ``path`` atomically (one tile per NavJump tile
    for a tiled bake)."""
    data = tiled_navmesh_set_bytes(nm) if nm.tiled else navmesh_set_bytes(nm)
    return atomic_write(path, lambda fh: fh.write(data))


def write_detour(nm: NavMesh, path) -> pathlib.Path:
    """The Detour export of ``write_formats``: an ``MSET`` set file (see module doc)."""
    return write_detour_navmesh_set(nm, path)


@dataclass
class NavMeshSet:
    params: np.ndarray  # NAVMESH_PARAMS_DTYPE
    tile_refs: list[int]
    tiles: list[DetourTile]


def parse_detour_navmesh_set(data: bytes, where: str = "MSET file") -> NavMeshSet:
    """Read an ``MSET`` file's parameters and tiles; ValueError when malformed."""
    head = _MSET_HEADER.size + NAVMESH_PARAMS_DTYPE.itemsize
    if len(data) < head:
        raise ValueError(f"{where}: {len(data)} bytes is too short for a navmesh set header")
    magic, version, n_tiles = _MSET_HEADER.unpack_from(data, 0)
    if magic != NAVMESHSET_MAGIC:
        raise ValueError(f"{where}: not a Detour navmesh set (no 'MSET' magic)")
    if version != NAVMESHSET_VERSION:
        raise ValueError(f"{where}: navmesh set version {version}, expected "
                         f"{NAVMESHSET_VERSION}")
    params = np.frombuffer(data, NAVMESH_PARAMS_DTYPE, count=1,
                           offset=_MSET_HEADER.size)[0].copy()
    pos = head
    refs, tiles = [], []
    for i in range(n_tiles):
        if pos + _MSET_TILE_HEADER.size > len(data):
            raise ValueError(f"{where}: tile {i} header runs past the end of the file")
        ref, size = _MSET_TILE_HEADER.unpack_from(data, pos)
        pos += _MSET_TILE_HEADER.size
        if size <= 0 or pos + size > len(data):
            raise ValueError(f"{where}: tile {i} ({size} bytes) runs past the end of the file")
        tiles.append(parse_detour_tile(data[pos:pos + size], f"{where} tile {i}"))
        refs.append(ref)
        pos += size
    return NavMeshSet(params=params, tile_refs=refs, tiles=tiles)


def read_detour(path) -> NavMeshSet:
    """Read a ``.detour.bin``: an ``MSET`` set, or a bare ``DNAV`` tile (one-tile set)."""
    data = pathlib.Path(path).read_bytes()
    if len(data) >= 4 and struct.unpack_from("<i", data)[0] == DT_NAVMESH_MAGIC:
        tile = parse_detour_tile(data, str(path))
        params = solo_params(tile)
        return NavMeshSet(params=params, tile_refs=[first_tile_ref(params)], tiles=[tile])
    return parse_detour_navmesh_set(data, str(path))
