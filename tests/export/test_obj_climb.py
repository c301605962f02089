"""Climbing in the OBJ export (docs/climbing.md, "Exports"): the climb graph's elements,
edges and links as ``l`` lines in ``climb_*`` groups, written and read back."""

import numpy as np
import pytest
from scenes import Scene

from blender_navjump.core import bake
from blender_navjump.core import climb as C
from blender_navjump.core.kinds import CLIMB_EDGE_KINDS, CLIMB_LADDER, CLIMB_LEDGE, CLIMB_LINK_KINDS
from blender_navjump.core.settings import BakeSettings
from blender_navjump.export.obj import read_obj_polygons, write_obj


@pytest.fixture(scope="module")
def climbing():
    scene = Scene().floor(-10, -10, 10, 10).box(-4, 0, 0, 4, 4, 2.5)
    v, t = scene.arrays()
    settings = BakeSettings(climbing_enabled=True)  # found ledges on the 2.5 m box too
    nm = bake(v, t, settings)
    items = [("east-ladder", CLIMB_LADDER, np.array([(4.1, 2.0, 0.0), (4.1, 2.0, 2.5)])),
             ("rail-ledge", CLIMB_LEDGE, np.array([(-3.0, -0.05, 2.5), (3.0, -0.05, 2.5)]))]
    out, _ = C.add_climbing(nm, items, v, t, settings)
    assert out.climb_element_kind.shape[0] >= 3
    return out


@pytest.mark.parametrize("up", ["z", "y"])
def test_obj_lines_carry_the_climb_graph(climbing, tmp_path, up):
    nm = climbing
    obj = read_obj_polygons(write_obj(nm, tmp_path / "nav.obj", up=up), up=up)
    assert len(obj.polygons) == nm.polygon_count
    groups: dict[str, list] = {}
    for g, ix in obj.lines:
        groups.setdefault(g, []).append(obj.vertices[ix])
    # elements: their segments, in element order within each kind
    got = groups.get("climb_elements_ledge", []) + groups.get("climb_elements_ladder", [])
    want = [nm.climb_element_ends[e] for k in (CLIMB_LEDGE, CLIMB_LADDER)
            for e in np.nonzero(nm.climb_element_kind == k)[0]]
    assert len(got) == len(want) == nm.climb_element_kind.shape[0]
    for a, b in zip(got, want, strict=True):
        assert np.allclose(a, b, atol=1e-6)
    # edges: node to node, grouped by kind
    for k, name in enumerate(CLIMB_EDGE_KINDS):
        members = np.nonzero(nm.climb_edge_kind == k)[0]
        lines = groups.get(f"climb_edges_{name}", [])
        assert len(lines) == members.size
        for seg, e in zip(lines, members, strict=True):
            assert np.allclose(seg, nm.climb_node_position[nm.climb_edge_nodes[e]], atol=1e-6)
    # links: climb node to its ground point
    for k, name in enumerate(CLIMB_LINK_KINDS):
        members = np.nonzero(nm.climb_link_kind == k)[0]
        lines = groups.get(f"climb_links_{name}", [])
        assert len(lines) == members.size
        for seg, c in zip(lines, members, strict=True):
            assert np.allclose(seg[0], nm.climb_node_position[nm.climb_link_node[c]], atol=1e-6)
            assert np.allclose(seg[1], nm.climb_link_point[c], atol=1e-6)
    assert "climb_links_mount" in groups and "climb_edges_along" in groups
