"""A hand-placed link's area (``NavMesh.link_area``) in every export: the JSON and glTF name
it, the Detour connection carries its id, the OBJ group names it (also with a space), and a
navmesh file written before links had areas still loads (issue 14)."""

import json
import zipfile

import numpy as np
import pytest

from blender_navjump.core.agents import Agent, bake_agents
from blender_navjump.core.custom_links import CustomLink, add_custom_links
from blender_navjump.core.kinds import LINK_KIND_AREAS, LINK_KINDS, USER_AREA_FIRST
from blender_navjump.core.navmesh import NavMesh
from blender_navjump.core.settings import BakeSettings
from blender_navjump.export import detour, gltf, navjump_json
from blender_navjump.export.obj import group_area, link_areas, read_obj_polygons, write_obj

SETTINGS = BakeSettings(cell_size=0.2, cell_height=0.1, agent_max_climb=0.4, agent_height=1.8,
                        links_enabled=False)


def _two_floors():
    """Two 10 x 10 m floors 4 m apart (nothing generated joins them)."""
    quad = np.array([[0, 1, 2], [0, 2, 3]], np.int32)
    v = np.array([[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0],
                  [14, 0, 0], [24, 0, 0], [24, 10, 0], [14, 10, 0]], np.float64)
    return v, np.concatenate([quad, quad + 4])


@pytest.fixture(scope="module")
def linked():
    """Three hand-placed links: "deep water" (a name with a space, only links use it),
    none, and a one-way "toll" one; the agent's costs: deep water 3, toll 2."""
    v, t = _two_floors()
    links = [CustomLink("ford", np.array([9.0, 5, 0]), np.array([15.0, 5, 0]),
                        area="deep water"),
             CustomLink("bridge", np.array([9.0, 2, 0]), np.array([15.0, 2, 0])),
             CustomLink("raft", np.array([15.0, 8, 0]), np.array([9.0, 8, 0]),
                        bidirectional=False, area="toll")]
    return bake_agents(v, t, [Agent("", SETTINGS, {"deep water": 3.0, "toll": 2.0})],
                       custom_links=links)[""]


def test_link_area_ids_name_the_areas_in_the_table(linked):
    names = [str(n) for n in linked.area_names]
    assert names[USER_AREA_FIRST:] == ["deep water", "toll"]
    assert linked.link_area.tolist() == [names.index("deep water"),
                                         LINK_KIND_AREAS[LINK_KINDS.index("custom")],
                                         names.index("toll")]
    assert linked.area_cost[names.index("deep water")] == 3.0
    assert link_areas(linked) == {0: "deep water", 2: "toll"}


def test_json_names_each_link_area_and_reads_it_back(linked, tmp_path):
    path = navjump_json.write_json(linked, tmp_path / "nav.json")
    doc = json.loads(path.read_text())
    assert [lk["area"] for lk in doc["links"]] == ["deep water", "custom", "toll"]
    back = navjump_json.read_json(path)
    np.testing.assert_array_equal(back.link_area, linked.link_area)
    # a link naming an area missing from "areas" is refused with the link and the name
    doc["links"][1]["area"] = "lava"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=r"'links'\[1\]\.area 'lava' is not in 'areas'"):
        navjump_json.read_json(path)


def test_gltf_extras_name_each_link_area(linked, tmp_path):
    glb = gltf.read_glb(gltf.write_glb(linked, tmp_path / "nav.glb"))
    extras = glb.navmesh_node()["extras"]["navjump"]
    assert [lk["area"] for lk in extras["links"]] == ["deep water", "custom", "toll"]


def test_detour_connections_carry_the_link_area_id_and_the_kind_flag(linked):
    tile = detour.build_detour_tile(linked)
    n = linked.polygon_count
    areas = tile.poly_area()[n:].tolist()
    cons = detour.offmesh_connections(linked)
    names = [str(x) for x in linked.area_names]
    want = [names.index("deep water"), LINK_KIND_AREAS[LINK_KINDS.index("custom")],
            names.index("toll")]
    assert sorted(set(areas)) == sorted(set(want))
    assert [want[k] for k in cons.link.tolist()] == areas
    custom_flag = detour.LINK_FLAGS[LINK_KINDS.index("custom")]
    assert (tile.polys["flags"][n:] == custom_flag).all()


def test_obj_group_keeps_an_area_name_with_a_space(linked, tmp_path):
    path = write_obj(linked, tmp_path / "nav.obj")
    text = path.read_text()
    assert "g links_custom area_deep%20water\n" in text and "g links_custom area_toll\n" in text
    groups = {g for g, _ix in read_obj_polygons(path).lines if g.startswith("links_")}
    assert {group_area(g) for g in groups} == {"", "deep water", "toll"}


def test_a_file_written_before_links_had_areas_loads_with_the_kind_areas(linked, tmp_path):
    linked.save(tmp_path / "new.npz")
    with zipfile.ZipFile(tmp_path / "new.npz") as src, \
            zipfile.ZipFile(tmp_path / "old.npz", "w") as dst:
        for item in src.infolist():
            if item.filename != "link_area.npy":
                dst.writestr(item, src.read(item.filename))
    old = NavMesh.load(tmp_path / "old.npz")
    assert old.link_area.tolist() == [LINK_KIND_AREAS[k] for k in linked.link_kind.tolist()]


def test_too_many_areas_is_refused_before_the_links_are_placed():
    v, t = _two_floors()
    from blender_navjump.core.pipeline import bake

    nm = bake(v, t, SETTINGS)
    links = [CustomLink(f"l{i}", np.array([9.0, 1 + 0.1 * i, 0]),
                        np.array([15.0, 1 + 0.1 * i, 0]), area=f"a{i}") for i in range(60)]
    with pytest.raises(ValueError, match=r"link 'l56': area 'a56' .* at most 64 areas"):
        add_custom_links(nm, links)


@pytest.mark.parametrize("cost", [-1, 0, -0.0])
def test_an_area_cost_of_zero_or_below_is_refused_naming_the_area(linked, tmp_path, cost):
    """Not walkable is null (inf): a cost of 0 or below is refused in a JSON file and in a
    navmesh from any other source (read back, -1 would come out as null: not exact)."""
    path = navjump_json.write_json(linked, tmp_path / "nav.json")
    doc = json.loads(path.read_text())
    i = [a["name"] for a in doc["areas"]].index("toll")
    doc["areas"][i]["cost"] = cost
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=rf"^{path}: 'areas'\[{i}\]\.cost must be a number > 0"):
        navjump_json.read_json(path)
    bad = navjump_json.read_json(navjump_json.write_json(linked, tmp_path / "ok.json"))
    bad.area_cost[i] = cost
    npz = tmp_path / "bad.npz"
    bad.save(npz)
    with pytest.raises(ValueError,
                       match=rf"'area_cost'\[{i}\] is .*; an area cost is a number > 0"):
        NavMesh.load(npz)
    # inf (not walkable) round-trips through null
    bad.area_cost[i] = np.inf
    back = navjump_json.read_json(navjump_json.write_json(bad, tmp_path / "inf.json"))
    assert back.equals(bad) and doc["areas"][i]["name"] == "toll"
