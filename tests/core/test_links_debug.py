"""Refused link candidates as debug data (issue 14's debug views, core/links_debug.py):
each with the reason (too high, too far, blocked at a point, too narrow, no landing),
recorded only when the bake asks for debug data."""

from __future__ import annotations

import numpy as np
import pytest
from link_levels import FINE, FLOOR, ledge, narrow_block_and_ledge
from link_levels import two_platforms as platforms
from link_oracle import check_links

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.debug import (
    LINK_REJECT,
    REJECT_BLOCKED,
    REJECT_NO_LANDING,
    REJECT_REASONS,
    REJECT_TOO_FAR,
    REJECT_TOO_HIGH,
    REJECT_TOO_NARROW,
    BakeDebug,
)
from blender_navjump.core.kinds import LINK_JUMP_ACROSS, LINK_JUMP_UP

DEFAULTS = BakeSettings()


def baked(scene, **over):
    v, t = scene.arrays()
    stg = BakeSettings(links_enabled=True, **over)
    debug = BakeDebug()
    nm = bake(v, t, stg, debug=debug)
    assert check_links(nm, v, t, stg) == []
    return nm, debug.link_rejects, v, t, stg


def of(rej, reason, kind=None):
    m = rej["reason"] == reason
    if kind is not None:
        m &= rej["kind"] == kind
    return rej[m]


def test_a_ledge_just_over_the_jump_height_is_refused_as_too_high():
    nm, rej, *_ = baked(ledge(DEFAULTS.max_jump_height + 0.05), **FINE)
    assert rej.dtype == LINK_REJECT
    assert LINK_JUMP_UP not in nm.link_kind.tolist()
    high = of(rej, REJECT_TOO_HIGH, LINK_JUMP_UP)
    assert high.shape[0] >= 5
    # taken off the lower floor, landing on the ledge's top, along its 10 m face
    np.testing.assert_allclose(high["z"], FLOOR, atol=0.02)
    np.testing.assert_allclose(high["tz"], FLOOR + DEFAULTS.max_jump_height + 0.05, atol=0.02)
    assert np.ptp(high["y"]) > 4.0 and np.isnan(high["bx"]).all()


def test_a_gap_just_over_the_jump_distance_is_refused_as_too_far():
    gap = DEFAULTS.max_jump_distance + 0.05
    nm, rej, *_ = baked(platforms(gap))
    assert nm.link_count == 0
    far = of(rej, REJECT_TOO_FAR, LINK_JUMP_ACROSS)
    assert far.shape[0] >= 5
    # from one platform's border to the other platform
    assert (np.minimum(far["x"], far["tx"]) < 10.0).all()
    assert (np.maximum(far["x"], far["tx"]) > 10.0 + gap).all()


def test_a_low_ceiling_blocks_the_jump_at_a_point_under_it():
    s = platforms(2.0)
    ceiling = DEFAULTS.max_jump_height + DEFAULTS.agent_height - 0.6
    s.box(10.0, -1.0, ceiling, 12.0, 11.0, ceiling + 0.3)
    nm, rej, *_ = baked(s)
    assert LINK_JUMP_ACROSS not in nm.link_kind.tolist()
    blocked = of(rej, REJECT_BLOCKED, LINK_JUMP_ACROSS)
    blocked = blocked[blocked["z"] < 0.5]  # from the platforms (not the slab's top)
    assert blocked.shape[0] >= 5
    # the body first meets the slab: its feet under the slab, over the gap's span
    assert np.isfinite(blocked["bx"]).all()
    assert ((blocked["bx"] > 10.0 - DEFAULTS.agent_radius)
            & (blocked["bx"] < 12.0 + DEFAULTS.agent_radius)).all()
    head = blocked["bz"] + DEFAULTS.agent_height
    assert (head > ceiling - 0.05).all() and (blocked["bz"] < ceiling).all()


def test_a_narrow_step_is_too_narrow_and_open_floor_has_no_landing():
    # a block too narrow for a link's width, a wide ledge with links
    nm, rej, *_ = baked(narrow_block_and_ledge(), **FINE, min_link_width=4.0)
    assert (nm.link_kind == LINK_JUMP_UP).sum() >= 1
    narrow = of(rej, REJECT_TOO_NARROW)
    assert narrow.shape[0] >= 1
    near_block = (np.abs(narrow["x"] - 3.25) < 2.5) & (np.abs(narrow["y"] - 5.0) < 2.5)
    assert near_block.any()
    nothing = of(rej, REJECT_NO_LANDING)
    # the lower floor's outer border (facing the void) has nothing to land on
    assert nothing.shape[0] >= 10 and (nothing["kind"] == -1).all()
    assert (nothing["x"] < 1.0).any()


def test_no_debug_data_records_nothing_and_changes_no_link():
    scene = ledge(DEFAULTS.max_jump_height + 0.05)
    v, t = scene.arrays()
    stg = BakeSettings(links_enabled=True, **FINE)
    plain = bake(v, t, stg)
    nm, rej, *_ = baked(scene, **FINE)
    assert rej.shape[0] > 0
    assert np.array_equal(plain.link_kind, nm.link_kind)
    np.testing.assert_array_equal(plain.link_start, nm.link_start)
    np.testing.assert_array_equal(plain.link_end, nm.link_end)


def test_rejects_survive_the_arrays_and_old_data_without_them_loads():
    _nm, rej, *_ = baked(platforms(DEFAULTS.max_jump_distance + 0.05))
    d = BakeDebug(0.3, 0.2, link_rejects=rej)
    again = BakeDebug.from_arrays(d.to_arrays())
    for name in rej.dtype.names:
        assert np.array_equal(again.link_rejects[name], rej[name], equal_nan=name[0] == "b")
    old = {k: v for k, v in d.to_arrays().items() if k != "link_rejects"}
    assert BakeDebug.from_arrays(old).link_rejects.shape == (0,)
    bad = dict(d.to_arrays(), link_rejects=np.zeros(3))
    with pytest.raises(ValueError, match="link_rejects"):
        BakeDebug.from_arrays(bad)
    assert set(np.unique(rej["reason"])) <= set(range(1, len(REJECT_REASONS)))
