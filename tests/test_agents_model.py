"""The bpy-free helpers behind the Blender agent list and object volumes (issue 14)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blender_navjump.blender.agents_model import (
    AgentError,
    AgentRow,
    agent_settings,
    core_agents,
    shown_agent,
)
from blender_navjump.blender.gather_nav import box_mesh, surface_layer
from blender_navjump.core.areas import Volume, check_volume, points_inside
from blender_navjump.core.settings import BakeSettings

BASE = BakeSettings(cell_size=0.2, cell_height=0.1)


def test_agent_overrides_its_fields_and_keeps_the_voxels():
    s = agent_settings(BASE, AgentRow("dog", {"agent_radius": 0.3000000119,
                                              "agent_height": 0.6, "agent_max_climb": 0.2},
                                      {}))
    assert (s.agent_radius, s.agent_height, s.agent_max_climb) == (0.3, 0.6, 0.2)
    assert (s.cell_size, s.cell_height) == (0.2, 0.1)


@pytest.mark.parametrize("rows, match", [
    ([AgentRow("dog", {"agent_height": 0.5, "agent_max_climb": 0.9}, {})],
     r"^agent_max_climb: agent 'dog': .*not below the agent's height"),
    ([AgentRow("", {}, {})], r"agent 1 \(''\): a name"),
    ([AgentRow("a b", {}, {})], r"agent 1 \('a b'\): a name"),
    ([AgentRow("x", {}, {}), AgentRow("x", {}, {})], r"agent 'x': two agents"),
    ([AgentRow("x", {}, {"lava": 2.0})], r"agent 'x': area 'lava' is not one of"),
    ([AgentRow("x", {}, {"mud": 0.0})], r"agent 'x': the cost of area 'mud' is 0"),
])
def test_bad_agents_name_the_agent_and_setting(rows, match):
    with pytest.raises(AgentError, match=match):
        core_agents(BASE, rows, known_areas=["mud"])


def test_not_walkable_is_an_infinite_cost():
    (a,) = core_agents(BASE, [AgentRow("x", {}, {"mud": math.inf})], ["mud"])
    assert a.area_cost == {"mud": math.inf}


def test_shown_agent_falls_back_to_the_first():
    assert shown_agent(["a", "b"], "b") == "b"
    assert shown_agent(["a", "b"], "gone") == "a"
    assert shown_agent([], "x") == ""


def test_box_mesh_is_a_closed_volume():
    v, t = box_mesh((0, 0, 0), (1, 2, 3))
    check_volume(Volume("box", "area", "x", v, t))
    inside = points_inside(Volume("box", "area", "x", v, t),
                           [(0.5, 1, 1.5), (1.5, 1, 1.5), (0.5, 1, 3.5)])
    assert inside.tolist() == [True, False, False]


@settings(max_examples=30, deadline=None)
@given(st.floats(-0.25, 0.55), st.floats(0.05, 0.95), st.floats(0.05, 0.95))
def test_surface_layer_holds_points_just_above_the_faces(dz, x, y):
    # two upward triangles of a tilted quad (z = 0.5 x) and one downward face (ignored)
    v = np.array([(0, 0, 0), (1, 0, 0.5), (1, 1, 0.5), (0, 1, 0), (0, 0, 5), (1, 1, 5),
                  (1, 0, 5)], float)
    t = np.array([(0, 1, 2), (0, 2, 3), (4, 5, 6)])
    lv, lt = surface_layer(v, t, below=0.3, above=0.6)
    assert lt.shape == (4, 3)
    vol = Volume("deck", "area", "wood", lv, lt)
    z = 0.5 * x + dz
    assert points_inside(vol, [(x, y, z)])[0]
    assert not points_inside(vol, [(x, y, 0.5 * x - 0.35), (x, y, 0.5 * x + 0.65)]).any()
