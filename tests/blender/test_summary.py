"""Bake results as plain values (blender/summary.py), without Blender."""

import numpy as np
import pytest
from scenes import Scene

from blender_navjump.blender import summary
from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.navmesh import NavMesh


def _baked():
    v, t = Scene().floor(0, 0, 10, 8).box(3, 2, 1.5, 6, 5, 1.8).arrays()
    return bake(v, t, BakeSettings(multi_stance=True, links_enabled=True))


def test_navmesh_bytes_and_words_round_trip():
    nm = _baked()
    data = summary.navmesh_to_bytes(nm)
    words = summary.bytes_to_words(data)
    assert words.dtype == np.int32 and words.shape[0] * 4 >= len(data)
    back = summary.navmesh_from_bytes(summary.words_to_bytes(words, len(data)))
    assert back.equals(nm)


def test_summary_counts_and_areas():
    nm = _baked()
    s = summary.summarize(nm)
    assert s["polygons"] == nm.polygon_count
    assert sum(s["polygons_by_stance"].values()) == nm.polygon_count
    assert s["links"] == nm.link_count == sum(s["links_by_kind"].values())
    assert s["polygons_by_stance"]["crouch"] > 0  # under the slab 1.5 m up
    # without stored stats the areas come from the polygons themselves, the same figures
    bare = NavMesh(**{f: getattr(nm, f) for f in nm.array_fields()})
    np.testing.assert_allclose(list(summary.summarize(bare)["area_by_stance_m2"].values()),
                               list(s["area_by_stance_m2"].values()), rtol=1e-9)


def test_report_text_names_what_was_baked():
    nm = _baked()
    text = summary.report_text(summary.summarize(nm), {"triangles": 36, "objects": 2,
                                                       "seconds": 0.012},
                               ["one warning"])
    assert "36 triangles from 2 objects (gathered in 12 ms)" in text
    assert f"Polygons: {nm.polygon_count}" in text
    assert text.rstrip().endswith("one warning")


def test_to_json_takes_numpy_values():
    assert summary.to_json({"b": np.int64(2), "a": np.array([1.5])}) == '{"a": [1.5], "b": 2}'


def test_settings_error_message_names_the_setting():
    from blender_navjump.core.settings import SettingsError

    with pytest.raises(SettingsError) as info:
        BakeSettings(agent_radius=-1.0).validate()
    msg = summary.settings_error_message(info.value, {"agent_radius": "Radius"}.get)
    assert msg.startswith("Invalid setting 'Radius' (agent_radius): ")
    assert "agent_radius: " not in msg
    assert summary.settings_error_message(ValueError("plain")) == "plain"


def test_result_warnings():
    v, t = Scene().floor(0, 0, 10, 8).arrays()
    flat = bake(v, t, BakeSettings(links_enabled=True))
    assert summary.result_warnings(flat, BakeSettings(links_enabled=True)) == [
        "Jump links are on but none were found"]
    assert summary.result_warnings(flat, BakeSettings()) == []
    steep = bake(v, t, BakeSettings(agent_max_slope=0.0))
    assert any("No walkable polygons" in w for w in summary.result_warnings(steep,
                                                                           BakeSettings()))
