import numpy as np
import pytest
from export_navmeshes import grid_floor, mixed_navmesh, two_platforms

from blender_navjump.core.navmesh import LINK_KINDS, STANCE_NAMES
from blender_navjump.export.obj import read_obj_polygons, write_obj

F32 = dict(rtol=1e-6, atol=1e-6)


def by_stance(nm):
    """Original polygon indices in the order the OBJ lists them (grouped by stance)."""
    return np.argsort(nm.polygon_stance, kind="stable")


@pytest.mark.parametrize("up", ["z", "y"])
@pytest.mark.parametrize("make", [mixed_navmesh, grid_floor, two_platforms])
def test_polygons_round_trip(tmp_path, make, up):
    nm = make()
    back = read_obj_polygons(write_obj(nm, tmp_path / "nav.obj", up=up), up=up)
    assert len(back.polygons) == nm.polygon_count
    order = by_stance(nm)
    assert back.stances.tolist() == nm.polygon_stance[order].tolist()
    for k, p in enumerate(order):
        np.testing.assert_allclose(back.polygon_coords(k), nm.polygon_vertices(p), **F32)


def test_groups_and_link_lines(tmp_path):
    nm = mixed_navmesh()
    path = write_obj(nm, tmp_path / "nav.obj")
    text = path.read_text()
    present = {STANCE_NAMES[s] for s in nm.polygon_stance}
    for name in STANCE_NAMES:
        assert (f"g stance_{name}\n" in text) == (name in present)
    back = read_obj_polygons(path)
    assert len(back.lines) == 3 * nm.link_count
    for kind in range(len(LINK_KINDS)):
        idx = np.nonzero(nm.link_kind == kind)[0]
        lines = [ix for g, ix in back.lines if g == f"links_{LINK_KINDS[kind]}"]
        assert len(lines) == 3 * idx.size
        for j, i in enumerate(idx):
            seg_s, seg_e, mid = (back.vertices[ix] for ix in lines[3 * j:3 * j + 3])
            np.testing.assert_allclose(seg_s, nm.link_start[i], **F32)
            np.testing.assert_allclose(seg_e, nm.link_end[i], **F32)
            np.testing.assert_allclose(mid[0], nm.link_start[i].mean(axis=0), **F32)
            np.testing.assert_allclose(mid[1], nm.link_end[i].mean(axis=0), **F32)


def _normal(points):
    return np.cross(points[1] - points[0], points[2] - points[0])


def test_y_up_file_is_a_rotation_with_faces_still_facing_up(tmp_path):
    nm = grid_floor()
    raw_y = read_obj_polygons(write_obj(nm, tmp_path / "y.obj", up="y"))  # no conversion
    raw_z = read_obj_polygons(write_obj(nm, tmp_path / "z.obj", up="z"))
    v = nm.vertices
    np.testing.assert_allclose(raw_y.vertices, np.stack([v[:, 0], v[:, 2], -v[:, 1]], 1), **F32)
    assert _normal(raw_y.polygon_coords(0))[1] > 0  # faces up in a Y-up viewer
    assert _normal(raw_z.polygon_coords(0))[2] > 0


def test_bad_input(tmp_path):
    with pytest.raises(ValueError, match="up must be one of z, y"):
        write_obj(grid_floor(), tmp_path / "a.obj", up="x")
    assert not (tmp_path / "a.obj").exists()
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 9\n")
    with pytest.raises(ValueError, match=rf"{bad}:4: vertex reference 9 is out of range"):
        read_obj_polygons(bad)
    bad.write_text("v 0 zero 0\n")
    with pytest.raises(ValueError, match=rf"{bad}:1: bad vertex"):
        read_obj_polygons(bad)


def test_failed_write_leaves_previous_file(tmp_path):
    target = write_obj(grid_floor(), tmp_path / "nav.obj")
    before = target.read_bytes()
    nm = grid_floor()
    nm.polygons = nm.polygons.copy()
    nm.polygons[0, :3] = [0, -1, 1]
    with pytest.raises(ValueError, match="padding"):
        write_obj(nm, target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["nav.obj"]


def test_link_areas_round_trip_from_the_level_obj_to_the_navmesh_obj(tmp_path):
    """A hand-placed link's area: ``NAME-area-AREA-link`` in the level OBJ (core/objio.py)
    -> the link's cost times the agent's area cost, its area kept in the NavMesh
    (``NavMesh.link_area``, saved and loaded) -> ``g links_custom area_AREA`` in the
    navmesh OBJ -> read back (export/obj.py: group_area)."""
    from blender_navjump.core.agents import Agent, bake_agents
    from blender_navjump.core.navmesh import NavMesh
    from blender_navjump.core.objio import read_obj_scene
    from blender_navjump.core.settings import BakeSettings
    from blender_navjump.export.obj import group_area, link_areas

    level = tmp_path / "level.obj"
    level.write_text("\n".join([
        "o floorA", "v 0 0 0", "v 10 0 0", "v 10 10 0", "v 0 10 0", "f 1 2 3 4",
        "o floorB", "v 14 0 0", "v 20 0 0", "v 20 10 0", "v 14 10 0", "f 5 6 7 8",
        "o bridge-area-toll-link", "v 9 5 0", "v 15 5 0", "l 9 10",
        "o ferry-link-oneway", "v 9 2 0", "v 15 2 0", "l 11 12",
        "o raft-area-toll-link-oneway", "v 15 8 0", "v 9 8 0", "l 13 14"]) + "\n")
    scene = read_obj_scene(level)
    assert [(k.name, k.area, k.bidirectional) for k in scene.links] == [
        ("bridge-area-toll-link", "toll", True), ("ferry-link-oneway", "", False),
        ("raft-area-toll-link-oneway", "toll", False)]
    assert scene.volumes == ()  # "-area-" inside a link's name makes no volume
    settings = BakeSettings(cell_size=0.2, cell_height=0.1, agent_max_climb=0.4,
                            agent_height=1.8, links_enabled=False)
    nm = bake_agents(scene.vertices, scene.triangles, [Agent("", settings, {"toll": 2.5})],
                     None, custom_links=scene.links)[""]
    assert nm.link_count == 3
    lengths = np.linalg.norm(nm.link_end.mean(axis=1) - nm.link_start.mean(axis=1), axis=1)
    np.testing.assert_allclose(nm.link_cost, lengths * [2.5, 1.0, 2.5], rtol=1e-6)
    assert link_areas(nm) == {0: "toll", 2: "toll"}
    nm.save(tmp_path / "nav.npz")
    saved = NavMesh.load(tmp_path / "nav.npz")
    assert link_areas(saved) == {0: "toll", 2: "toll"}

    path = write_obj(saved, tmp_path / "nav.obj")
    assert "g links_custom area_toll\n" in path.read_text()
    back = read_obj_polygons(path)
    link_lines = [(g, ix) for g, ix in back.lines if g.startswith("links_")]
    assert len(link_lines) == 9  # three lines per link
    mids = {}
    for k in range(3):  # the third line of each link: start midpoint -> end midpoint
        group, ix = link_lines[3 * k + 2]
        mids[tuple(np.round(back.vertices[ix[0]], 3))] = group_area(group)
    want = {tuple(np.round(nm.link_start[i].mean(axis=0), 3)): link_areas(nm).get(i, "")
            for i in range(3)}
    assert mids == want
    assert group_area("links_custom") == "" and group_area("links_drop area_x y") == "x"
