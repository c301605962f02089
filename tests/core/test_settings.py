"""BakeSettings: Recast defaults, validation messages, voxel conversion in one place."""

import math

import numpy as np
import pytest

from blender_navjump.core.settings import BakeSettings, SettingsError, voxel_config


def test_defaults_are_recasts():
    s = BakeSettings()
    assert (s.cell_size, s.cell_height, s.agent_height, s.agent_radius, s.agent_max_climb,
            s.agent_max_slope, s.region_min_size, s.region_merge_size, s.edge_max_len,
            s.edge_max_error, s.verts_per_poly, s.detail_sample_dist,
            s.detail_sample_max_error) == (0.3, 0.2, 2.0, 0.6, 0.9, 45.0, 8, 20, 12.0, 1.3, 6,
                                           6.0, 1.0)
    assert s.partition == "watershed"
    s.validate()


def test_voxel_conversion_matches_recast():
    cfg = voxel_config(BakeSettings(), np.zeros(3), np.array([10.0, 20.0, 5.0]))
    assert cfg.walkable_height == 10  # ceil(2.0 / 0.2)
    assert cfg.walkable_climb == 4  # floor(0.9 / 0.2)
    assert cfg.walkable_radius == 2  # ceil(0.6 / 0.3)
    assert cfg.max_edge_len == 40
    assert cfg.min_region_area == 64 and cfg.merge_region_area == 400
    assert cfg.detail_sample_dist == pytest.approx(1.8)
    assert cfg.detail_sample_max_error == pytest.approx(0.2)
    assert cfg.walkable_slope_cos == pytest.approx(math.cos(math.radians(45)))


@pytest.mark.parametrize("name,value", [
    ("cell_size", 0.0), ("cell_size", -1.0), ("cell_height", float("nan")),
    ("agent_radius", -0.1), ("agent_max_slope", 90.0), ("verts_per_poly", 7),
    ("verts_per_poly", 2), ("region_min_size", 3.5), ("partition", "layers"),
    ("agent_height", float("inf")), ("edge_max_error", 0.0),
])
def test_bad_values_are_refused_with_the_name(name, value):
    with pytest.raises(SettingsError) as err:
        BakeSettings(**{name: value}).validate()
    assert err.value.setting == name
    assert name in str(err.value)


def test_cell_height_too_coarse_for_agent():
    with pytest.raises(SettingsError, match="cell_height"):
        BakeSettings(cell_height=1.0).validate()


def test_stance_order_is_checked():
    with pytest.raises(SettingsError, match="prone < crouch < stand"):
        BakeSettings(multi_stance=True, crouch_height=2.0).validate()


def test_huge_grid_is_refused_with_an_estimate():
    s = BakeSettings(cell_size=0.01, memory_limit_gb=1.0).validate()
    with pytest.raises(SettingsError, match=r"cell_size: .* cells, more than the 400,000,000"):
        voxel_config(s, np.zeros(3), np.array([5000.0, 5000.0, 10.0]))
    s = BakeSettings(cell_size=0.3, memory_limit_gb=1.0).validate()
    with pytest.raises(SettingsError, match=r"cell_size: .* would need about \d+\.\d+ GiB"):
        voxel_config(s, np.zeros(3), np.array([5000.0, 5000.0, 10.0]))


def test_unknown_setting_and_parse():
    with pytest.raises(SettingsError, match="unknown setting"):
        BakeSettings.from_dict({"cell_sise": 0.3})
    assert BakeSettings.parse_value("verts_per_poly", "5") == 5
    assert BakeSettings.parse_value("multi_stance", "yes") is True
    with pytest.raises(SettingsError, match="cell_size"):
        BakeSettings.parse_value("cell_size", "abc")
