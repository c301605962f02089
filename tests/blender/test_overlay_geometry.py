"""Overlay geometry builders (plain numpy: no bpy needed)."""

import types

import numpy as np
import pytest

from blender_navjump.blender import camera, png
from blender_navjump.blender import overlay_geometry as ob
from blender_navjump.core import kinds
from blender_navjump.core.navmesh import NavMesh, empty_navmesh, kind_link_areas

N_LINK_KINDS = len(kinds.LINK_KINDS)


def _grid_navmesh(nx, ny, cell=1.0, stances=None, z=None):
    """nx * ny unit squares (CCW quads) with neighbours, a one-triangle-pair detail mesh."""
    xs, ys = np.meshgrid(np.arange(nx + 1) * cell, np.arange(ny + 1) * cell, indexing="ij")
    zs = np.zeros_like(xs) if z is None else z(xs, ys)
    verts = np.stack([xs.ravel(), ys.ravel(), zs.ravel()], axis=1)

    def vid(i, j):
        return i * (ny + 1) + j

    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    i, j = i.ravel(), j.ravel()
    polys = np.full((nx * ny, 6), -1, np.int32)
    polys[:, 0], polys[:, 1] = vid(i, j), vid(i + 1, j)
    polys[:, 2], polys[:, 3] = vid(i + 1, j + 1), vid(i, j + 1)
    pid = (i * ny + j)
    neigh = np.full((nx * ny, 6), -1, np.int32)
    neigh[:, 0] = np.where(j > 0, pid - 1, -1)            # edge (i,j)->(i+1,j): south
    neigh[:, 1] = np.where(i < nx - 1, pid + ny, -1)      # east
    neigh[:, 2] = np.where(j < ny - 1, pid + 1, -1)       # north
    neigh[:, 3] = np.where(i > 0, pid - ny, -1)           # west
    n = nx * ny
    dverts = verts[polys[:, :4]].reshape(-1, 3)
    dmesh = np.stack([np.arange(n) * 4, np.full(n, 4), np.arange(n) * 2, np.full(n, 2)],
                     axis=1).astype(np.int32)
    dtris = np.tile(np.array([[0, 1, 2, 0], [0, 2, 3, 0]], np.int32), (n, 1))
    stance = np.zeros(n, np.int8) if stances is None else np.asarray(stances, np.int8)
    return NavMesh(vertices=verts, polygons=polys, neighbours=neigh,
                   polygon_area=(stance + 1).astype(np.uint8),
                   polygon_region=np.zeros(n, np.int32), polygon_stance=stance,
                   detail_meshes=dmesh, detail_vertices=dverts, detail_triangles=dtris)


def _with_links(nm, kinds, starts, ends, bidir=None, start_poly=None, end_poly=None,
                apex=None):
    n = len(kinds)
    nm.link_kind = np.asarray(kinds, np.int8)
    nm.link_start = np.asarray(starts, np.float64).reshape(n, 2, 3)
    nm.link_end = np.asarray(ends, np.float64).reshape(n, 2, 3)
    nm.link_bidirectional = np.zeros(n, bool) if bidir is None else np.asarray(bidir, bool)
    nm.link_start_poly = np.zeros(n, np.int32) if start_poly is None else np.asarray(
        start_poly, np.int32)
    nm.link_end_poly = np.zeros(n, np.int32) if end_poly is None else np.asarray(
        end_poly, np.int32)
    nm.link_apex = np.zeros(n) if apex is None else np.asarray(apex, np.float64)
    nm.link_length = np.ones(n)
    nm.link_cost = np.ones(n)
    # a bad kind (a test of bad arrays) gets area 0
    nm.link_area = kind_link_areas(np.clip(nm.link_kind, 0, N_LINK_KINDS - 1))
    nm.link_area[(nm.link_kind < 0) | (nm.link_kind >= N_LINK_KINDS)] = 0
    return nm


def _segments(lineset):
    return lineset.positions.reshape(-1, 2, 3)


def _colors_in(layer):
    cols = [s.colors for s in layer.lines if s.count] + [layer.tri_colors]
    return {tuple(np.round(c.astype(np.float64), 3).tolist()) for c in np.concatenate(cols)}


# --------------------------------------------------------------------- arcs
def test_arc_ends_on_both_points_and_rises_apex_above_takeoff():
    p0 = np.array([[0.0, 0.0, 1.0]])
    p1 = np.array([[3.0, 4.0, 1.5]])
    arc = ob.arc_points(p0, p1, np.array([1.2]), segments=200)[0]
    np.testing.assert_allclose(arc[0], p0[0], atol=1e-12)
    np.testing.assert_allclose(arc[-1], p1[0], atol=1e-12)
    assert arc[:, 2].max() == pytest.approx(1.0 + 1.2, abs=1e-3)
    # horizontal motion is uniform (constant horizontal speed)
    step = np.linalg.norm(np.diff(arc[:, :2], axis=0), axis=1)
    np.testing.assert_allclose(step, 5.0 / 200, rtol=1e-9)
    # a parabola: constant second difference in z, negative (gravity)
    d2 = np.diff(arc[:, 2], n=2)
    np.testing.assert_allclose(d2, d2[0], rtol=1e-6)
    assert d2[0] < 0


def test_arc_matches_ballistic_flight_for_any_gravity():
    # z0 + vz t - g t^2 / 2 with vz = sqrt(2 g apex), landing dz higher
    apex, dz, g = 1.0, 0.6, 9.81
    vz = np.sqrt(2 * g * apex)
    t_land = (vz + np.sqrt(vz * vz - 2 * g * dz)) / g
    t = np.linspace(0.0, t_land, 11)
    z = vz * t - 0.5 * g * t * t
    arc = ob.arc_points([[0, 0, 0]], [[2.0, 0, dz]], [apex], segments=10)[0]
    np.testing.assert_allclose(arc[:, 2], z, atol=1e-9)


def test_drop_arc_walks_off_and_falls():
    arc = ob.arc_points([[0, 0, 3.0]], [[2, 0, 0.0]], [0.0], segments=20)[0]
    assert np.all(np.diff(arc[:, 2]) <= 1e-12)  # never rises
    assert abs(arc[1, 2] - arc[0, 2]) < abs(arc[-1, 2] - arc[-2, 2])  # accelerates


def test_arc_too_low_apex_is_raised_to_the_landing():
    arc = ob.arc_points([[0, 0, 0.0]], [[1, 0, 2.0]], [0.5], segments=50)[0]
    assert arc[-1, 2] == pytest.approx(2.0)
    assert arc[:, 2].max() <= 2.0 + 1e-9
    assert np.isfinite(arc).all()


# --------------------------------------------------------------------- navmesh layers
def test_stance_layers_cover_their_polygons_only():
    stances = [0, 0, 1, 2, 2, 2]  # 6 x 1 strip
    nm = _grid_navmesh(6, 1, stances=stances)
    geo = ob.build_overlay(nm, lift=0.0)
    assert not geo.issues
    for i, name in enumerate(("stand", "crouch", "prone")):
        layer = geo.layers[f"stance_{name}"]
        tris = layer.tri_positions.reshape(-1, 3, 3)
        assert tris.shape[0] == 2 * stances.count(i)
        area = 0.5 * np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]),
                                    axis=1).sum()
        assert area == pytest.approx(stances.count(i))
        xs = np.nonzero(np.array(stances) == i)[0]
        assert tris[..., 0].min() == pytest.approx(xs.min())
        assert tris[..., 0].max() == pytest.approx(xs.max() + 1)
        rgba = np.array(ob.STANCE_COLORS[name][:3] + (ob.FILL_ALPHA,), np.float32)
        np.testing.assert_allclose(layer.tri_colors, np.broadcast_to(rgba, (tris.shape[0] * 3,
                                                                           4)))
    assert geo.layers["stance_stand"].tri_positions.dtype == np.float32


def test_fill_follows_the_detail_mesh_heights():
    nm = _grid_navmesh(2, 2, z=lambda x, y: 0.1 * x)
    nm.detail_vertices = nm.detail_vertices.copy()
    nm.detail_vertices[:, 2] += 0.5  # detail surface 0.5 above the polygon vertices
    geo = ob.build_overlay(nm, lift=0.05)
    z = geo.layers["stance_stand"].tri_positions[:, 2]
    x = geo.layers["stance_stand"].tri_positions[:, 0]
    np.testing.assert_allclose(z, 0.1 * x + 0.55, atol=1e-5)


def test_bad_detail_mesh_falls_back_to_polygon_fans():
    nm = _grid_navmesh(3, 2)
    nm.detail_triangles = nm.detail_triangles.copy()
    nm.detail_triangles[0, 1] = 99  # outside polygon 0's detail vertices
    geo = ob.build_overlay(nm)
    assert any("detail" in s for s in geo.issues)
    assert geo.layers["stance_stand"].tri_positions.shape[0] == 6 * 2 * 3


def test_outline_draws_shared_edges_once_and_borders_thick():
    nx, ny = 4, 3
    geo = ob.build_overlay(_grid_navmesh(nx, ny), lift=0.0)
    inner, border = geo.layers["navmesh"].lines
    # grid edges: horizontal (nx * (ny + 1)) + vertical ((nx + 1) * ny)
    n_border = 2 * (nx + ny)
    n_all = nx * (ny + 1) + (nx + 1) * ny
    assert border.count == n_border and inner.count == n_all - n_border
    assert border.width > inner.width
    keys = {tuple(sorted(map(tuple, np.round(s, 6)))) for s in _segments(inner)}
    assert len(keys) == inner.count  # no duplicates
    # border segments lie on the outer rectangle
    seg = _segments(border)
    on_edge = ((np.isclose(seg[..., 0], 0) | np.isclose(seg[..., 0], nx)).all(1)
               | (np.isclose(seg[..., 1], 0) | np.isclose(seg[..., 1], ny)).all(1))
    assert on_edge.all()


def test_invalid_polygons_are_skipped_and_named():
    nm = _grid_navmesh(3, 1, stances=[0, 1, 7])  # stance 7 does not exist
    nm.polygons = nm.polygons.copy()
    nm.polygons[0, 2] = 10_000  # vertex out of range
    geo = ob.build_overlay(nm)
    assert any("invalid vertices" in s for s in geo.issues)
    assert any("unknown stance" in s for s in geo.issues)
    assert geo.layers["stance_stand"].tri_positions.shape[0] == 0
    assert geo.layers["stance_crouch"].tri_positions.shape[0] == 6
    assert geo.layers["stance_prone"].tri_positions.shape[0] == 0


def test_empty_and_missing_navmesh_give_empty_layers():
    for nm in (None, empty_navmesh()):
        geo = ob.build_overlay(nm)
        assert set(geo.layers) == set(ob.LAYER_NAMES)
        assert all(layer.empty for layer in geo.layers.values())


# --------------------------------------------------------------------- link layers
def test_link_layers_by_kind_with_arrowheads_and_arcs():
    nm = _grid_navmesh(2, 1)
    # a narrow drop, a wide bidirectional jump across, a narrow jump up
    nm = _with_links(nm, [0, 1, 2],
                     [[[0, 0.5, 3], [0, 0.5, 3]], [[1, 0, 0], [1, 1, 0]], [[2, 0, 0], [2, 0, 0]]],
                     [[[2, 0.5, 0], [2, 0.5, 0]], [[4, 0, 0], [4, 1, 0]], [[3, 0, 1], [3, 0, 1]]],
                     bidir=[False, True, False], apex=[0.0, 1.0, 1.0])
    geo = ob.build_overlay(nm, lift=0.0)
    assert not geo.issues
    drop, across, up = (geo.layers[f"links_{k}"] for k in ("drop", "jump_across", "jump_up"))
    s = ob.ARC_SEGMENTS
    # narrow: one arc (S segments) + 2 arrowhead wings; no ribbon
    assert drop.lines[0].count == s + 2 and drop.tri_positions.shape[0] == 0
    assert up.lines[0].count == s + 2
    # wide: two side arcs + two end segments + 2 wings at each end; a ribbon of 2S tris
    assert across.lines[0].count == 2 * s + 2 + 4
    assert across.tri_positions.shape[0] == 2 * s * 3
    for layer, kind in ((drop, "drop"), (across, "jump_across"), (up, "jump_up")):
        assert _colors_in(layer) <= {
            tuple(np.round(ob.LINK_COLORS[kind][:3] + (a,), 3).tolist())
            for a in (1.0, ob.RIBBON_ALPHA)}
    # the jump across arc rises 1 m above take-off; the drop never rises
    assert across.lines[0].positions[:, 2].max() == pytest.approx(1.0, abs=1e-2)
    assert drop.lines[0].positions[:, 2].max() == pytest.approx(3.0)
    # the drop's arrowhead tip is the landing point
    seg = _segments(drop.lines[0])
    tips = seg[-2:, 0]
    np.testing.assert_allclose(tips, [[2, 0.5, 0], [2, 0.5, 0]], atol=1e-6)
    wings = seg[-2:, 1]
    assert (wings[:, 0] < 2).all()  # wings point back toward the take-off


def test_unattached_link_ends_are_red():
    nm = _grid_navmesh(2, 1)
    nm = _with_links(nm, [1, 1], [[[0, 0, 0], [0, 1, 0]]] * 2, [[[3, 0, 0], [3, 1, 0]]] * 2,
                     start_poly=[0, -1], end_poly=[1, 57])  # 57: no such polygon
    geo = ob.build_overlay(nm, lift=0.0)
    layer = geo.layers["links_jump_across"]
    red = [s for s in layer.lines if np.allclose(s.colors, ob.UNATTACHED_COLOR)]
    assert len(red) == 1
    seg = _segments(red[0])
    # link 1: start segment + cross at x=0, end segment + cross at x=3 (link 0 is attached)
    assert seg.shape[0] == 2 * (1 + 2)
    assert set(np.round(seg[..., 0].mean(axis=1)).astype(int)) == {0, 3}


def test_links_with_bad_arrays_are_skipped():
    nm = _grid_navmesh(2, 1)
    nm = _with_links(nm, [1, 9, 0], [[[0, 0, 0], [0, 1, 0]]] * 3, [[[3, 0, 0], [3, 1, 0]]] * 3)
    nm.link_start = nm.link_start.copy()
    nm.link_start[2, 0, 0] = np.nan
    nm.link_apex = np.zeros(1)  # wrong length: taken as 0
    geo = ob.build_overlay(nm)
    assert any("2 links" in s for s in geo.issues)
    assert not geo.layers["links_jump_across"].empty
    assert geo.layers["links_drop"].empty
    nm.link_end = np.zeros((1, 2, 3))
    geo = ob.build_overlay(nm)
    assert all(geo.layers[name].empty for name in ob.LINK_LAYERS)
    assert any("do not match" in s for s in geo.issues)


# --------------------------------------------------------------------- path
def test_path_layer_walk_jump_and_stance_markers():
    pts = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [4, 0, 0], [5, 0, 0]], float)
    flags = [kinds.FLAG_WALK, kinds.FLAG_STANCE_CHANGE, kinds.FLAG_JUMP_START, kinds.FLAG_JUMP_END,
             kinds.FLAG_WALK]
    stances = [0, 1, 1, 0, 0]
    layer = ob.build_path_layer(pts, flags, stances, lift=0.0, start=pts[0], goal=pts[-1])
    path, markers = layer.lines
    white = np.all(np.isclose(path.colors, ob.PATH_COLOR), axis=1)
    pink = np.all(np.isclose(path.colors, ob.PATH_JUMP_COLOR), axis=1)
    assert white.sum() == 2 * 3  # three walking segments
    assert pink.sum() == 2 * ob.ARC_SEGMENTS
    jump = path.positions[pink]
    assert jump[:, 0].min() == pytest.approx(2) and jump[:, 0].max() == pytest.approx(4)
    assert jump[:, 2].max() == pytest.approx(ob.DEFAULT_JUMP_APEX, abs=1e-2)
    crouch = np.all(np.isclose(markers.colors, ob.STANCE_COLORS["crouch"]), axis=1)
    assert crouch.sum() == 2 * 4  # one diamond of four segments at the change
    np.testing.assert_allclose(markers.positions[crouch].mean(axis=0), [1, 0, 0], atol=1e-6)
    counts = ob.path_summary(flags, stances)
    assert counts == {"jumps": 1, "drops": 0, "stance_changes": 2}


def test_path_jump_uses_the_links_apex():
    nm = _with_links(_grid_navmesh(2, 1), [1], [[[0, 0, 0], [0, 1, 0]]],
                     [[[3, 0, 0], [3, 1, 0]]], apex=[2.5])
    pts = np.array([[0, 0.5, 0], [3, 0.5, 0]], float)
    layer = ob.build_path_layer(pts, [kinds.FLAG_JUMP_START, kinds.FLAG_JUMP_END], [0, 0],
                                point_links=[0, -1], navmesh=nm, lift=0.0)
    assert layer.lines[0].positions[:, 2].max() == pytest.approx(2.5, abs=0.02)


def test_path_layer_without_points_still_marks_the_ends():
    layer = ob.build_path_layer(None, [], start=(1, 2, 3), goal=(np.nan, 0, 0))
    assert layer.lines[0].count == 0
    assert np.allclose(layer.lines[1].colors, ob.PATH_START_COLOR)


# --------------------------------------------------------------------- scale
def test_large_navmesh_builds_every_polygon():
    # its time is a benchmark target: scripts/bench_overlay.py (5 s for this size)
    nm = _grid_navmesh(400, 250)  # 100,000 polygons
    rng = np.random.default_rng(3)
    n = 10_000
    a = rng.uniform(0, 250, (n, 1, 3)) * [1, 1, 0]
    starts = np.concatenate([a, a + [0, 1.0, 0]], axis=1)
    ends = starts + rng.uniform(-3, 3, (n, 1, 3)) * [1, 1, 0.3]
    nm = _with_links(nm, rng.integers(0, 3, n), starts, ends, bidir=rng.random(n) < 0.3,
                     start_poly=rng.integers(-1, 100_000, n),
                     end_poly=rng.integers(0, 100_000, n), apex=rng.uniform(0, 1, n))
    geo = ob.build_overlay(nm)
    assert sum(geo.layers[f"stance_{s}"].tri_positions.shape[0]
               for s in ("stand", "crouch", "prone")) == 100_000 * 2 * 3


# --------------------------------------------------------------------- camera and PNG
@pytest.mark.parametrize("view", ["top", "three_quarter"])
@pytest.mark.parametrize("size", [(640, 360), (300, 400)])
def test_fitted_camera_frames_the_bounds(view, size):

    bounds = np.array([[-3.0, 5.0, -1.0], [37.0, 25.0, 4.0]])
    v, p = camera.fit_camera(bounds, size, view)
    corners = np.array([[x, y, z] for x in bounds[:, 0] for y in bounds[:, 1]
                        for z in bounds[:, 2]])
    px = camera.project(corners, v, p, size)
    assert (px >= 0).all() and (px[:, 0] <= size[0]).all() and (px[:, 1] <= size[1]).all()
    span = (px.max(axis=0) - px.min(axis=0)) / np.array(size)
    assert span.max() > 0.8  # fills the frame in at least one direction
    # in front of the camera
    h = np.concatenate([corners, np.ones((8, 1))], axis=1) @ (p @ v).T
    assert (h[:, 3] > 0).all() and (np.abs(h[:, 2] / h[:, 3]) <= 1).all()
    if view == "top":  # +Y is up in the image, +X to the right
        a, b = camera.project([[0, 10, 0], [10, 20, 0]], v, p, size)
        assert b[0] > a[0] and b[1] < a[1]


def test_png_round_trip(tmp_path):

    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (17, 23, 4), dtype=np.uint8)
    path = png.write_png(tmp_path / "sub" / "x.png", img)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    np.testing.assert_array_equal(png.read_png(path), img)


def _overlay_settings(**changes):
    values = {f"show_{n}": True for n in ("overlay", "navmesh", "stand", "crouch", "prone",
                                          "drop", "jump_across", "jump_up", "custom",
                                          "path")}
    values.update({f"test_{n}": True for n in ("stand", "crouch", "prone", "drop",
                                               "jump_across", "jump_up", "custom")})
    values["path_test"] = True
    values.update(changes)
    return types.SimpleNamespace(**values)


def test_visible_layers_follow_the_switches():
    every = ob.visible_layers(_overlay_settings())
    assert every == {"navmesh", "path", *ob.STANCE_LAYERS, *ob.LINK_LAYERS}
    assert ob.visible_layers(_overlay_settings(show_overlay=False)) == set()
    assert ob.visible_layers(None) == set()
    assert every - ob.visible_layers(_overlay_settings(show_crouch=False)) == {"stance_crouch"}
    # the path shows only while the path test is on
    assert "path" not in ob.visible_layers(_overlay_settings(path_test=False))


def test_agent_names_follow_the_capabilities():
    stances, links = ob.test_agent_names(_overlay_settings(test_prone=False, test_drop=False))
    assert stances == ("stand", "crouch")
    assert links == ("jump_across", "jump_up", "custom")
