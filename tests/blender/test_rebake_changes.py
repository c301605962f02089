"""``blender/rebake_changes.py``: when Auto re-bake bakes again, decided without Blender."""

from hypothesis import given, settings
from hypothesis import strategies as st

from blender_navjump.blender.rebake_changes import (
    make_signature,
    role_change,
    settings_change,
)
from blender_navjump.core.settings import BakeSettings


def test_settings_change_names_what_changed():
    values = BakeSettings().to_dict()
    base = make_signature(values, ("SCENE", ""), 3)
    assert settings_change(base, make_signature(dict(values), ("SCENE", ""), 3)) == ""
    assert settings_change(None, base) == "settings changed"  # never baked
    moved = make_signature(dict(values, agent_radius=0.7), ("SCENE", ""), 3)
    assert settings_change(base, moved) == "settings changed"
    assert settings_change(base, make_signature(values, ("COLLECTION", "Level"), 3)) == \
        "settings changed"
    assert settings_change(base, make_signature(values, ("SCENE", ""), 4)) == \
        "objects added or removed"
    # an invalid combination still differs from the valid settings before it
    assert settings_change(base, make_signature({"error": "bad"}, ("SCENE", ""), 3)) == \
        "settings changed"


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]),
                       st.floats(allow_nan=False) | st.booleans() | st.text(max_size=3)))
def test_signature_ignores_the_order_of_the_settings(values):
    reversed_values = dict(reversed(list(values.items())))
    assert make_signature(values, ("S", ""), 1) == make_signature(reversed_values, ("S", ""), 1)


def test_role_change_names_the_first_object_whose_role_changed():
    before = {"Floor": "WALKABLE", "Crate": "OBSTACLE"}
    assert role_change(before, dict(before)) == ""
    assert role_change(before, {"Floor": "WALKABLE", "Crate": "IGNORE"}) == \
        "role of Crate changed"
    assert role_change(before, {"Floor": "WALKABLE", "New": "OBSTACLE"}) == ""  # new object
