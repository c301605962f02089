"""Detour export: byte layout checked in Python, behaviour checked with the real Detour.

The Node client (tests/export/node) runs the WASM build of Detour from
``@recast-navigation/core``: it loads our files exactly as a game would and answers
findNearestPoly / findPath / findStraightPath. Expectations come from geometry computed
here (visibility-graph shortest paths, containing polygons), never from Detour itself.
"""

import heapq
import itertools
import math
import struct

import numpy as np
import pytest
from export_navmeshes import (
    SETTINGS,
    bump_square,
    grid_floor,
    l_corridor,
    make_navmesh,
    mixed_navmesh,
    two_platforms,
)

from blender_navjump.core.navmesh import NavMesh, empty_navmesh
from blender_navjump.export import detour

DT_STRAIGHTPATH_OFFMESH_CONNECTION = 4
LINK_TOL = 1e-3


def y_up(p):
    p = np.asarray(p, np.float64)
    return np.stack([p[..., 0], p[..., 2], -p[..., 1]], axis=-1)


def z_up(p):
    p = np.asarray(p, np.float64)
    return np.stack([p[..., 0], -p[..., 2], p[..., 1]], axis=-1)


def path_length(points) -> float:
    p = np.asarray(points, np.float64)
    return float(np.linalg.norm(np.diff(p, axis=0), axis=1).sum())


# ------------------------------------------------------------------ independent oracle
def _inside_any(points, polys_xy, eps=1e-9) -> np.ndarray:
    """For (N, 2) points: inside (or on the border of) at least one convex CCW polygon."""
    points = np.atleast_2d(points)
    inside = np.zeros(points.shape[0], bool)
    for poly in polys_xy:
        edges = np.roll(poly, -1, axis=0) - poly
        rel = points[:, None, :] - poly[None]
        cross = edges[None, :, 0] * rel[..., 1] - edges[None, :, 1] * rel[..., 0]
        inside |= (cross >= -eps).all(axis=1)
    return inside


def shortest_path_2d(nm: NavMesh, start, end, polygons=None) -> float:
    """Shortest path inside the union of the (convex, flat) polygons (all, or the given
    ones): Dijkstra over the visibility graph of start, end and the polygon vertices."""
    chosen = range(nm.polygon_count) if polygons is None else polygons
    polys = [nm.polygon_vertices(p)[:, :2] for p in chosen]
    corners = np.unique(np.concatenate(polys), axis=0)
    nodes = np.vstack([np.asarray(start[:2], float), np.asarray(end[:2], float), corners])
    samples = np.linspace(0.0, 1.0, 200)[:, None]

    def visible(a, b):
        return _inside_any(a + samples * (b - a), polys).all()

    dist = {0: 0.0}
    heap = [(0.0, 0)]
    done = set()
    while heap:
        d, i = heapq.heappop(heap)
        if i in done:
            continue
        if i == 1:
            return d
        done.add(i)
        for j in range(len(nodes)):
            if j in done or j == i:
                continue
            nd = d + float(np.linalg.norm(nodes[j] - nodes[i]))
            if nd < dist.get(j, math.inf) and visible(nodes[i], nodes[j]):
                dist[j] = nd
                heapq.heappush(heap, (nd, j))
    return math.inf


def random_point_in_polygon(rng, poly):
    """A point of a random fan triangle of a convex polygon, kept away from its edges."""
    k = rng.integers(1, len(poly) - 1)
    w = 0.7 * rng.dirichlet(np.ones(3)) + 0.1
    return w @ np.array([poly[0], poly[k], poly[k + 1]])


def containing_polygon(nm: NavMesh, point) -> int:
    for p in range(nm.polygon_count):
        if _inside_any(np.asarray(point[:2]), [nm.polygon_vertices(p)[:, :2]], eps=-1e-9)[0]:
            return p
    return -1


# ------------------------------------------------------------------ layout in Python
def test_tile_bytes_follow_detour_struct_layout():
    nm = mixed_navmesh()
    data = detour.detour_tile_bytes(nm)
    assert data[:4] == b"VAND"  # int 'D'<<24|'N'<<16|'A'<<8|'V', little-endian
    (version,) = struct.unpack_from("<i", data, 4)
    assert version == 7
    tile = detour.parse_detour_tile(data)
    h = tile.header
    counts = nm.polygon_vertex_count()
    cons = detour.offmesh_connections(nm)
    expected_sizes = [100, 12 * h["vertCount"], 32 * h["polyCount"], 12 * h["maxLinkCount"],
                      12 * h["detailMeshCount"], 12 * h["detailVertCount"],
                      4 * h["detailTriCount"], 16 * h["bvNodeCount"], 36 * h["offMeshConCount"]]
    assert len(data) == sum((s + 3) & ~3 for s in expected_sizes)
    assert h["polyCount"] == nm.polygon_count + cons.count
    assert h["offMeshBase"] == nm.polygon_count
    assert h["vertCount"] == nm.vertices.shape[0] + 2 * cons.count
    assert h["maxLinkCount"] == counts.sum() + 4 * cons.count
    assert h["bvNodeCount"] == 2 * nm.polygon_count - 1
    # Vertices in Detour's Y-up frame, float32.
    np.testing.assert_array_equal(tile.verts[:nm.vertices.shape[0]],
                                  y_up(nm.vertices).astype(np.float32))
    # Polygons: same vertex order, neighbour + 1 (0 = border), stance area/flag, ground type.
    for p in range(nm.polygon_count):
        n = counts[p]
        poly = tile.polys[p]
        assert poly["vertCount"] == n
        assert poly["verts"][:n].tolist() == nm.polygons[p, :n].tolist()
        assert poly["neis"][:n].tolist() == (nm.neighbours[p, :n] + 1).tolist()
        stance = nm.polygon_stance[p]
        assert poly["areaAndtype"] == stance + 1  # type 0 (ground) in the top two bits
        assert poly["flags"] == 1 << stance
    # Off-mesh polygons: two vertices, type 1 in the top bits, link area/flag by kind.
    kinds = nm.link_kind[cons.link]
    for c in range(cons.count):
        poly = tile.polys[nm.polygon_count + c]
        assert poly["vertCount"] == 2 and poly["areaAndtype"] >> 6 == 1
        assert poly["areaAndtype"] & 0x3F == 4 + kinds[c]
        assert poly["flags"] == 0x08 << kinds[c]
        con = tile.offmesh_cons[c]
        assert con["poly"] == nm.polygon_count + c and con["side"] == 0xFF
        assert con["userId"] == cons.link[c]
        assert con["flags"] == int(nm.link_bidirectional[cons.link[c]])
        assert con["rad"] == np.float32(SETTINGS["agent_radius"])


def test_wide_links_become_connections_one_diameter_apart():
    nm = two_platforms(width=3.2)
    cons = detour.offmesh_connections(nm)
    diameter = 2 * SETTINGS["agent_radius"]
    n = round(3.2 / diameter)
    assert cons.count == n
    s, e = nm.link_start[0], nm.link_end[0]
    for k in range(n):
        t = (k + 0.5) / n
        np.testing.assert_allclose(cons.start[k], s[0] + t * (s[1] - s[0]))
        np.testing.assert_allclose(cons.end[k], e[0] + t * (e[1] - e[0]))
    spacing = np.linalg.norm(np.diff(cons.start, axis=0), axis=1)
    assert np.allclose(spacing, 3.2 / n) and abs(3.2 / n - diameter) <= diameter / 2
    assert detour.offmesh_connections(two_platforms(width=0.3)).count == 1


def _quantised_box(tile, points):
    h = tile.header
    q = float(h["bvQuantFactor"])
    rel = (np.asarray(points, np.float64) - h["bmin"].astype(np.float64)) * q
    return np.floor(rel.min(axis=0) + 1e-6), np.ceil(rel.max(axis=0) - 1e-6)


@pytest.mark.parametrize("make", [lambda: grid_floor(nx=9, ny=7), mixed_navmesh, l_corridor])
def test_bv_tree_is_a_valid_detour_tree(make):
    nm = make()
    tile = detour.build_detour_tile(nm)
    nodes = tile.bv_tree
    leaves = []

    def walk(i):  # returns the index after the subtree rooted at i, checking boxes
        node = nodes[i]
        if node["i"] >= 0:
            leaves.append(int(node["i"]))
            return i + 1
        end = i - int(node["i"])
        j = i + 1
        while j < end:
            child = nodes[j]
            assert (child["bmin"] >= node["bmin"]).all() and (child["bmax"] <= node["bmax"]).all()
            j = walk(j)
        assert j == end
        return end

    assert walk(0) == nodes.shape[0]
    assert sorted(leaves) == list(range(nm.polygon_count))
    for node in nodes[nodes["i"] >= 0]:
        p = int(node["i"])
        lo, hi = _quantised_box(tile, y_up(nm.polygon_vertices(p)))
        assert (node["bmin"] <= lo).all() and (node["bmax"] >= hi).all()


def test_detail_mesh_keeps_only_extra_vertices_and_marks_boundary_edges():
    nm = bump_square(peak=0.5)
    tile = detour.build_detour_tile(nm)
    d = tile.detail_meshes[0]
    assert (d["vertCount"], d["triCount"]) == (1, 4)
    np.testing.assert_allclose(tile.detail_verts, y_up([[2.0, 2.0, 0.5]]))
    # Triangles (k, k+1, centre): only their first edge lies on the polygon boundary.
    assert tile.detail_tris[:, 3].tolist() == [1, 1, 1, 1]
    # Without detail a fan is made: edges (0,1) / (j-1,j) / (last,0) on the boundary.
    nm.detail_meshes = np.zeros((0, 4), np.int32)
    fan = detour.build_detour_tile(nm)
    assert fan.detail_tris[:, :3].tolist() == [[0, 1, 2], [0, 2, 3]]
    assert fan.detail_tris[:, 3].tolist() == [1 | 4, 4 | 16]


def test_inconsistent_detail_meshes_are_refused():
    nm = bump_square()
    nm.detail_vertices = nm.detail_vertices.copy()
    nm.detail_vertices[0, 0] += 0.5  # no longer the polygon's first vertex
    with pytest.raises(ValueError, match=r"'detail_vertices'\[0\] should be vertex 0 of "
                                         r"polygon 0"):
        detour.build_detour_tile(nm)
    nm = bump_square()
    nm.detail_triangles = nm.detail_triangles.copy()
    nm.detail_triangles[2, 1] = 9  # only 5 detail vertices
    with pytest.raises(ValueError, match="uses a vertex outside polygon 0's 5 detail"):
        detour.build_detour_tile(nm)
    # A polygon whose detail has no triangles falls back to a fan.
    nm = bump_square()
    nm.detail_meshes = nm.detail_meshes.copy()
    nm.detail_meshes[0, 3] = 0
    tile = detour.build_detour_tile(nm)
    assert tile.detail_tris[:, :3].tolist() == [[0, 1, 2], [0, 2, 3]]
    assert tile.detail_verts.shape == (0, 3)


def test_navmesh_set_file(tmp_path):
    nm = two_platforms()
    path = detour.write_detour(nm, tmp_path / "level.detour.bin")
    data = path.read_bytes()
    assert data[:4] == b"TESM"  # 'MSET'
    magic, version, n_tiles = struct.unpack_from("<iii", data)
    assert (version, n_tiles) == (1, 1)
    orig = struct.unpack_from("<3f", data, 12)
    width, height, max_tiles, max_polys = struct.unpack_from("<ffii", data, 24)
    ref, size = struct.unpack_from("<Ii", data, 40)
    tile = detour.parse_detour_tile(data[48:])
    assert size == len(data) - 48 == len(detour.detour_tile_bytes(nm))
    np.testing.assert_array_equal(orig, tile.header["bmin"])
    assert width == pytest.approx(tile.header["bmax"][0] - tile.header["bmin"][0])
    assert height == pytest.approx(tile.header["bmax"][2] - tile.header["bmin"][2])
    assert (max_tiles, max_polys) == (1, tile.header["polyCount"])
    # Detour: salt 1 above ilog2(nextPow2(maxPolys)) polygon bits (and 0 tile bits).
    assert ref == 1 << math.ceil(math.log2(max_polys))
    assert detour.read_detour(path).tiles[0].header["polyCount"] == max_polys
    raw = detour.write_detour_tile(nm, tmp_path / "level.dnav")
    assert detour.read_detour(raw).tile_refs == [ref]


def test_what_detour_cannot_hold_is_refused(tmp_path):
    target = tmp_path / "x.detour.bin"
    with pytest.raises(ValueError, match="no polygons"):
        detour.write_detour(empty_navmesh(), target)
    heptagon = make_navmesh([(math.cos(a), math.sin(a), 0) for a in
                             np.linspace(0, 2 * math.pi, 8)[:-1]], [list(range(7))], nvp=7)
    with pytest.raises(ValueError, match="polygon 0 has 7 vertices"):
        detour.write_detour(heptagon, target)
    bad = grid_floor()
    bad.polygon_stance = bad.polygon_stance.copy()
    bad.polygon_stance[1] = 5
    with pytest.raises(ValueError, match=r"'polygon_stance'\[1\] is 5"):
        detour.write_detour(bad, target)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("damage,message", [
    (lambda d: b"XXXX" + d[4:], "no 'MSET' magic"),
    (lambda d: d[:4] + struct.pack("<i", 2) + d[8:], "set version 2"),
    (lambda d: d[:-20], "runs past the end"),
    (lambda d: d[:48] + b"ABCD" + d[52:], "no 'DNAV' magic"),
    (lambda d: d[:20], "too short"),
])
def test_corrupt_detour_files_are_rejected(tmp_path, damage, message):
    good = detour.write_detour(mixed_navmesh(), tmp_path / "good.detour.bin").read_bytes()
    bad = tmp_path / "bad.detour.bin"
    bad.write_bytes(damage(good))
    with pytest.raises(ValueError, match=message) as info:
        detour.read_detour(bad)
    assert str(bad) in str(info.value)


# --------------------------------------------------------------------- real Detour
def detour_run(node_client, tmp_path, nm, queries=(), points=(), kinds=("mset", "dnav"),
               point_half_extents=(0.05, 2.0, 0.05)):
    """Export nm both ways, load each in Detour, run the queries (given Z-up)."""
    files = {"mset": detour.write_detour(nm, tmp_path / "nav.detour.bin"),
             "dnav": detour.write_detour_tile(nm, tmp_path / "nav.dnav")}
    request = {
        "navmeshes": [{"file": str(files[k]), "kind": k} for k in kinds],
        "queries": [dict(q, start=y_up(q["start"]).tolist(), end=y_up(q["end"]).tolist())
                    for q in queries],
        "points": y_up(np.asarray(points, float).reshape(-1, 3)).tolist(),
        "pointHalfExtents": list(point_half_extents),
    }
    results = node_client.request("navjump_detour.mjs", "query", request, tmp_path)["results"]
    # Both loaders must see the same navmesh.
    for other in results[1:]:
        assert other["queries"] == results[0]["queries"]
        assert other["points"] == results[0]["points"]
    return results[0]


def test_detour_reads_our_structs(node_client, tmp_path):
    nm = mixed_navmesh()
    res = detour_run(node_client, tmp_path, nm)
    tile = res["tile"]
    ours = detour.build_detour_tile(nm)
    for key in ("polyCount", "vertCount", "maxLinkCount", "detailMeshCount",
                "detailVertCount", "detailTriCount", "bvNodeCount", "offMeshConCount",
                "offMeshBase"):
        assert tile["header"][key] == ours.header[key], key
    assert tile["header"]["walkableClimb"] == pytest.approx(SETTINGS["agent_max_climb"])
    for p in range(nm.polygon_count):
        got = tile["polys"][p]
        np.testing.assert_allclose(got["verts"], y_up(nm.polygon_vertices(p)), atol=1e-6)
        assert got["area"] == nm.polygon_stance[p] + 1 and got["type"] == 0
        # Detour linked every internal edge to the polygon across it.
        internal = {(e, int(nb)) for e, nb in enumerate(nm.neighbours[p]) if nb >= 0}
        walked = {(lk["edge"], lk["poly"]) for lk in got["links"] if lk["edge"] != 0xFF}
        assert internal <= walked
    cons = detour.offmesh_connections(nm)
    for c in range(cons.count):
        con_poly = tile["polys"][nm.polygon_count + c]
        link = cons.link[c]
        assert con_poly["type"] == 1
        by_edge = {lk["edge"]: lk["poly"] for lk in con_poly["links"]}
        # Both ends attached to the polygons the link generator named.
        assert by_edge == {0: nm.link_start_poly[link], 1: nm.link_end_poly[link]}
        back_start = [lk for lk in tile["polys"][nm.link_start_poly[link]]["links"]
                      if lk["poly"] == nm.polygon_count + c]
        back_end = [lk for lk in tile["polys"][nm.link_end_poly[link]]["links"]
                    if lk["poly"] == nm.polygon_count + c]
        assert len(back_start) == 1
        assert len(back_end) == int(nm.link_bidirectional[link])
        np.testing.assert_allclose(tile["offMeshCons"][c]["pos"],
                                   np.r_[y_up(cons.start[c]), y_up(cons.end[c])], atol=1e-6)


def test_l_corridor_path_turns_at_the_inner_corner(node_client, tmp_path):
    nm = l_corridor(width=2.0, arm=10.0)
    pairs = [((1.0, 1.0, 0.0), (9.0, 9.0, 0.0)), ((0.5, 1.7, 0.0), (8.3, 9.5, 0.0)),
             ((9.5, 9.9, 0.0), (0.2, 0.1, 0.0)), ((2.0, 1.0, 0.0), (7.0, 1.5, 0.0))]
    res = detour_run(node_client, tmp_path, nm, [{"start": s, "end": e} for s, e in pairs])
    for (s, e), q in zip(pairs, res["queries"], strict=True):
        assert q["found"] and not q["partial"]
        straight = z_up(q["straight"])
        np.testing.assert_allclose(straight[0], s, atol=1e-5)
        np.testing.assert_allclose(straight[-1], e, atol=1e-5)
        assert path_length(straight) == pytest.approx(shortest_path_2d(nm, s, e), abs=LINK_TOL)
    # The first path bends exactly once, at the inner corner (8, 2).
    corner = z_up(res["queries"][0]["straight"])[1:-1]
    np.testing.assert_allclose(corner, [[8.0, 2.0, 0.0]], atol=1e-5)


def test_floor_paths_are_taut_in_their_corridor_and_nearest_polygons_are_right(
        node_client, tmp_path):
    nm = grid_floor(nx=9, ny=7, cell=1.5)
    rng = np.random.default_rng(7)
    size = np.array([9 * 1.5, 7 * 1.5])
    points = np.c_[rng.uniform(0.01, 1, (60, 2)) * (size - 0.02), np.zeros(60)]
    pairs = list(zip(points[:10], points[10:20], strict=True))
    res = detour_run(node_client, tmp_path, nm, [{"start": s, "end": e} for s, e in pairs],
                     points=points)
    for (s, e), q in zip(pairs, res["queries"], strict=True):
        assert q["found"] and not q["partial"]
        corridor = q["corridor"]
        assert corridor[0] == containing_polygon(nm, s)
        assert corridor[-1] == containing_polygon(nm, e)
        for a, b in itertools.pairwise(corridor):
            assert b in nm.neighbours[a], "corridor steps between non-adjacent polygons"
        # A* picks the corridor (not always the one holding the straight line, on a grid);
        # the funnel must then give the shortest path inside that corridor.
        length = path_length(z_up(q["straight"]))
        assert length == pytest.approx(shortest_path_2d(nm, s, e, corridor), abs=LINK_TOL)
        assert length >= np.linalg.norm(e - s) - 1e-6
    for p, got in zip(points, res["points"], strict=True):
        assert got["poly"] == containing_polygon(nm, p)
        np.testing.assert_allclose(z_up(got["point"]), p, atol=1e-5)


def test_detail_heights_come_from_the_detail_mesh(node_client, tmp_path):
    nm = bump_square(size=4.0, peak=0.5)
    points = [(2.0, 2.0, 0.0), (1.0, 1.0, 0.0), (3.0, 2.0, 0.0), (0.2, 2.0, 0.0)]
    res = detour_run(node_client, tmp_path, nm, points=points,
                     point_half_extents=(0.1, 2.0, 0.1))

    def expected_height(x, y):  # the pyramid: linear from the border (0) to the centre
        return 0.5 * (1.0 - max(abs(x - 2.0), abs(y - 2.0)) / 2.0)

    for (x, y, _), got in zip(points, res["points"], strict=True):
        assert got["poly"] == 0
        assert z_up(got["point"])[2] == pytest.approx(expected_height(x, y), abs=1e-4)


def test_stance_flags_filter_paths(node_client, tmp_path):
    nm = grid_floor(nx=3, ny=1, cell=2.0, stances=["stand", "crouch", "stand"])
    s, e = (0.5, 1.0, 0.0), (5.5, 1.0, 0.0)
    queries = [{"start": s, "end": e, "includeFlags": 0x01},  # may only stand
               {"start": s, "end": e, "includeFlags": 0x01 | 0x02},  # may crouch
               {"start": s, "end": e, "excludeFlags": 0x02}]
    res = detour_run(node_client, tmp_path, nm, queries, kinds=("mset",))
    standing, crouching, excluded = res["queries"]
    assert standing["corridor"][-1] != 2 or standing["partial"]
    assert excluded["corridor"][-1] != 2 or excluded["partial"]
    assert crouching["found"] and not crouching["partial"]
    assert crouching["corridor"] == [0, 1, 2]
    assert path_length(z_up(crouching["straight"])) == pytest.approx(5.0, abs=LINK_TOL)
    assert [p["area"] for p in res["tile"]["polys"]] == [1, 2, 1]
    assert [p["flags"] for p in res["tile"]["polys"]] == [1, 2, 1]


@pytest.mark.parametrize("bidirectional", [False, True])
def test_path_between_platforms_takes_the_link(node_client, tmp_path, bidirectional):
    gap, drop = 2.0, 1.0
    nm = two_platforms(kind="drop", bidirectional=bidirectional, width=2.0, gap=gap, drop=drop)
    s, e = np.array([1.0, 1.2, 0.0]), np.array([4.0 + gap + 3.0, 1.0, -drop])
    queries = [{"start": s, "end": e}, {"start": e, "end": s},
               {"start": s, "end": e, "excludeFlags": 0x08}]  # an agent that may not drop
    res = detour_run(node_client, tmp_path, nm, queries)
    forward, backward, no_drop = res["queries"]
    cons = detour.offmesh_connections(nm)
    expected = min(np.linalg.norm(a - s) + np.linalg.norm(b - a) + np.linalg.norm(e - b)
                   for a, b in zip(cons.start, cons.end, strict=True))
    assert forward["found"] and not forward["partial"]
    assert any(p >= nm.polygon_count for p in forward["corridor"])
    assert DT_STRAIGHTPATH_OFFMESH_CONNECTION in forward["straightFlags"]
    assert path_length(z_up(forward["straight"])) == pytest.approx(expected, abs=LINK_TOL)
    # The straight path jumps from a connection start to its end point.
    starts = [i for i, f in enumerate(forward["straightFlags"])
              if f & DT_STRAIGHTPATH_OFFMESH_CONNECTION]
    a, b = z_up(forward["straight"])[starts[0]:starts[0] + 2]
    assert any(np.allclose(a, cs, atol=1e-5) and np.allclose(b, ce, atol=1e-5)
               for cs, ce in zip(cons.start, cons.end, strict=True))
    reached_back = backward["found"] and not backward["partial"]
    assert reached_back == bidirectional
    assert no_drop["partial"] or no_drop["corridor"][-1] != forward["corridor"][-1]


# ------------------------------------------------------- against Detour's own builder
def _terrain_with_box():
    nx, ny, size = 24, 20, (12.0, 10.0)
    xs, ys = np.linspace(0, size[0], nx + 1), np.linspace(0, size[1], ny + 1)
    x, y = np.meshgrid(xs, ys)
    z = 0.35 * np.sin(x * 0.9) * np.cos(y * 0.7)
    verts = [np.stack([x, y, z], -1).reshape(-1, 3)]
    tris = []
    for j, i in itertools.product(range(ny), range(nx)):
        a = j * (nx + 1) + i
        tris += [(a, a + 1, a + nx + 2), (a, a + nx + 2, a + nx + 1)]
    # A solid box (outward faces) standing on the terrain.
    x0, y0, z0, x1, y1, z1 = 4, 3, -1, 7, 6, 2
    corners = np.array([(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
                        (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)], float)
    b = len(verts[0])
    quads = [(4, 5, 6, 7), (0, 3, 2, 1), (0, 1, 5, 4), (2, 3, 7, 6), (3, 0, 4, 7), (1, 2, 6, 5)]
    for q in quads:
        tris += [(b + q[0], b + q[1], b + q[2]), (b + q[0], b + q[2], b + q[3])]
    return np.concatenate(verts + [corners]), np.array(tris)


def _navmesh_from_tile(tile, settings) -> NavMesh:
    """Rebuild a Z-up NavMesh from Detour's own tile data (no off-mesh polygons)."""
    h = tile.header
    n = int(h["offMeshBase"])
    verts = z_up(tile.verts[:int(h["vertCount"]) - 2 * int(h["offMeshConCount"])])
    polys = np.full((n, 6), -1, np.int32)
    neis = np.full((n, 6), -1, np.int32)
    meshes, dverts, dtris = [], [], []
    for p in range(n):
        k = int(tile.polys[p]["vertCount"])
        polys[p, :k] = tile.polys[p]["verts"][:k]
        neis[p, :k] = tile.polys[p]["neis"][:k].astype(np.int32) - 1
        d = tile.detail_meshes[p]
        extra = z_up(tile.detail_verts[d["vertBase"]:d["vertBase"] + d["vertCount"]])
        meshes.append((len(dverts), k + len(extra), len(dtris), int(d["triCount"])))
        dverts += verts[polys[p, :k]].tolist() + extra.tolist()
        dtris += tile.detail_tris[d["triBase"]:d["triBase"] + d["triCount"]].tolist()
    return NavMesh(vertices=verts, polygons=polys, neighbours=neis,
                   polygon_area=np.ones(n, np.uint8), polygon_region=np.zeros(n, np.int32),
                   polygon_stance=np.zeros(n, np.int8),
                   detail_meshes=np.array(meshes, np.int32),
                   detail_vertices=np.array(dverts, np.float64),
                   detail_triangles=np.array(dtris, np.int32).reshape(-1, 4),
                   settings=settings)


def test_matches_detours_own_builder(node_client, tmp_path):
    """Recast + dtCreateNavMeshData bake a scene; the same polygons written by us must give
    the same tile, field by field, and the same answers to queries."""
    cs, ch = 0.25, 0.1
    verts, tris = _terrain_with_box()
    def terrain_z(x, y):
        return 0.35 * math.sin(x * 0.9) * math.cos(y * 0.7)

    # A jump straight over the box, from terrain to terrain.
    link_start, link_end = (2.0, 5.0, terrain_z(2.0, 5.0)), (9.5, 5.0, terrain_z(9.5, 5.0))
    radius = 0.5
    bake = {
        "positions": y_up(verts).ravel().tolist(), "indices": tris.ravel().tolist(),
        "config": {"cs": cs, "ch": ch, "walkableSlopeAngle": 45, "walkableHeight": 20,
                   "walkableClimb": 5, "walkableRadius": 2, "maxEdgeLen": 40,
                   "maxSimplificationError": 1.3, "minRegionArea": 8, "mergeRegionArea": 20,
                   "maxVertsPerPoly": 6, "detailSampleDist": 6, "detailSampleMaxError": 1},
        "offMeshConnections": [{"start": y_up(link_start).tolist(),
                                "end": y_up(link_end).tolist(), "radius": radius,
                                "bidirectional": False, "area": 5, "flags": 0x10,
                                "userId": 0}],
        "out": str(tmp_path / "reference.dnav"),
    }
    node_client.request("navjump_detour.mjs", "bake", bake, tmp_path)
    ref_bytes = (tmp_path / "reference.dnav").read_bytes()
    ref = detour.parse_detour_tile(ref_bytes)
    h = ref.header
    sizes = [100, 12 * h["vertCount"], 32 * h["polyCount"], 12 * h["maxLinkCount"],
             12 * h["detailMeshCount"], 12 * h["detailVertCount"], 4 * h["detailTriCount"],
             16 * h["bvNodeCount"], 36 * h["offMeshConCount"]]
    assert len(ref_bytes) == sum((s + 3) & ~3 for s in sizes)  # our reading of the layout
    assert h["offMeshConCount"] == 1 and h["detailVertCount"] > 0 and h["polyCount"] > 4

    settings = {"cell_size": cs, "agent_height": 20 * ch, "agent_radius": radius,
                "agent_max_climb": 5 * ch}
    nm = _navmesh_from_tile(ref, settings)
    start_poly = containing_polygon(nm, link_start)
    end_poly = containing_polygon(nm, link_end)
    nm.link_kind = np.array([1], np.int8)  # jump_across: area 5, flag 0x10
    nm.link_start = np.array([[link_start, link_start]], np.float64)
    nm.link_end = np.array([[link_end, link_end]], np.float64)
    nm.link_bidirectional = np.array([False])
    nm.link_start_poly = np.array([start_poly], np.int32)
    nm.link_end_poly = np.array([end_poly], np.int32)
    nm.link_apex = np.zeros(1)
    nm.link_length = np.ones(1)
    nm.link_cost = np.ones(1)
    nm.link_area = np.array([5], np.uint8)  # jump_across's built-in area
    ours = detour.build_detour_tile(nm)

    for key in ("polyCount", "vertCount", "maxLinkCount", "detailMeshCount", "detailVertCount",
                "detailTriCount", "offMeshConCount", "offMeshBase", "walkableHeight",
                "walkableRadius", "walkableClimb", "bvQuantFactor"):
        assert ours.header[key] == ref.header[key], key
    assert (ours.header["bmin"] >= ref.header["bmin"]).all()
    assert (ours.header["bmax"] <= ref.header["bmax"]).all()
    np.testing.assert_array_equal(ours.verts, ref.verts)
    for key in ("verts", "neis", "vertCount", "flags"):
        np.testing.assert_array_equal(ours.polys[key], ref.polys[key], err_msg=key)
    # Recast's generator leaves walkable polygons at area 0; ours carry the stance area 1.
    assert ours.poly_type().tolist() == ref.poly_type().tolist()
    assert (ours.poly_area()[:nm.polygon_count] == 1).all()
    assert ours.poly_area()[nm.polygon_count:].tolist() == \
        ref.poly_area()[nm.polygon_count:].tolist()
    for key in POLY_DETAIL_FIELDS:
        np.testing.assert_array_equal(ours.detail_meshes[key], ref.detail_meshes[key])
    np.testing.assert_array_equal(ours.detail_verts, ref.detail_verts)
    np.testing.assert_array_equal(ours.detail_tris, ref.detail_tris)  # incl. edge flags
    assert ours.offmesh_cons.tobytes() == ref.offmesh_cons.tobytes()

    # Same answers from Detour for both tiles, for points well inside random polygons
    # (off the mesh, Detour's coarse box quantisation makes the candidates depend on the
    # tile bounds, which Recast pads differently).
    rng = np.random.default_rng(3)
    owners = rng.integers(0, nm.polygon_count, 40)
    pts = np.array([random_point_in_polygon(rng, nm.polygon_vertices(p)) for p in owners])
    queries = [{"start": a, "end": b} for a, b in zip(pts[:12], pts[12:24], strict=True)]
    queries.append({"start": (1.5, 5.0, terrain_z(1.5, 5.0)),
                    "end": (10.0, 5.5, terrain_z(10.0, 5.5))})  # over the box: the link
    mine_file = detour.write_detour_tile(nm, tmp_path / "ours.dnav")
    request = {
        "navmeshes": [{"file": bake["out"], "kind": "dnav"},
                      {"file": str(mine_file), "kind": "dnav"}],
        "queries": [dict(q, start=y_up(q["start"]).tolist(), end=y_up(q["end"]).tolist())
                    for q in queries],
        "points": y_up(pts).tolist(), "pointHalfExtents": [0.5, 2.0, 0.5], "dump": False,
    }
    theirs, mine = node_client.request("navjump_detour.mjs", "query", request,
                                       tmp_path)["results"]
    for owner, a, b in zip(owners, theirs["points"], mine["points"], strict=True):
        assert a["poly"] == b["poly"] == owner
        np.testing.assert_allclose(a["point"], b["point"], atol=1e-4)
    for a, b in zip(theirs["queries"], mine["queries"], strict=True):
        assert (a["found"], a["partial"], a["corridor"]) == (b["found"], b["partial"],
                                                            b["corridor"])
        np.testing.assert_allclose(a["straight"], b["straight"], atol=1e-4)
        assert a["straightFlags"] == b["straightFlags"]
    assert DT_STRAIGHTPATH_OFFMESH_CONNECTION in mine["queries"][-1]["straightFlags"]


POLY_DETAIL_FIELDS = ("vertBase", "triBase", "vertCount", "triCount")


@pytest.mark.parametrize("changes", [
    {}, {"agent_height": 1.7},
    {"multi_stance": True},
    {"multi_stance": True, "prone_enabled": False},
    {"multi_stance": True, "prone_enabled": False, "crouch_enabled": False,
     "stand_height": 2.1},
])
def test_walkable_height_is_the_bakes_own(changes):
    """The tile header's walkableHeight is BakeSettings.walkable_height_world of the bake's
    settings (one derivation, not a copy with its own defaults)."""
    from blender_navjump.core.navmesh import empty_navmesh
    from blender_navjump.core.settings import BakeSettings

    settings = BakeSettings().with_values(**changes)
    nm = empty_navmesh()
    nm.settings = settings.to_dict()
    assert detour._walkable_height(nm) == settings.walkable_height_world()
    nm.settings = dict(changes)  # a partial record: the rest are the defaults
    assert detour._walkable_height(nm) == settings.walkable_height_world()
