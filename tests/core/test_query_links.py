"""Path queries over links made by the bake itself (two platforms and a gap)."""

from __future__ import annotations

import numpy as np
import pytest
from scenes import Scene

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.query import AgentFilter, NavQuery


@pytest.fixture(scope="module")
def gap_navmesh():
    # 6 m platforms 1.2 m apart: only a jump across joins them
    v, t = Scene().box(0, 0, -1, 6, 6, 0).box(7.2, 0, -1, 13, 6, 0).arrays()
    nm = bake(v, t, BakeSettings(links_enabled=True))
    if nm.link_count == 0:
        pytest.fail("the bake made no link over a 1.2 m gap")
    return nm


def on_segment(p, seg) -> float:
    """(distance from p to the segment, fraction along it)."""
    d = seg[1] - seg[0]
    t = float(np.clip(np.dot(p - seg[0], d) / np.dot(d, d), 0.0, 1.0))
    return float(np.linalg.norm(seg[0] + t * d - p)), t


def test_baked_jump_link_is_taken_and_refused_without_links(gap_navmesh):
    nm = gap_navmesh
    q = NavQuery(nm)
    res = q.find_path((2.0, 3.0, 0.0), (10.0, 2.0, 0.0))
    assert res.found
    assert res.flag_names.count("jump_start") == 1 and res.flag_names.count("jump_end") == 1
    i = res.flag_names.index("jump_start")
    link = int(res.point_links[i])
    assert link in res.links_used().tolist()
    assert nm.link_kind[link] == 1  # jump_across
    take_off, landing = res.points[i], res.points[i + 1]
    segs = (nm.link_start[link], nm.link_end[link])
    if on_segment(take_off, segs[1])[0] < on_segment(take_off, segs[0])[0]:
        segs = segs[::-1]  # a bidirectional link used from its end
    # links store heights measured on the triangles, path points the navmesh surface's
    # (voxel-rounded by up to a cell height): on the segments horizontally, heights close
    flat = [np.array(sg, np.float64) * (1.0, 1.0, 0.0) for sg in segs]
    d0, t0 = on_segment(take_off * (1.0, 1.0, 0.0), flat[0])
    d1, t1 = on_segment(landing * (1.0, 1.0, 0.0), flat[1])
    assert d0 < 1e-6 and d1 < 1e-6
    assert t0 == pytest.approx(t1, abs=1e-6)
    ch = BakeSettings().cell_height
    assert abs(take_off[2] - (segs[0][0, 2] + t0 * (segs[0][1, 2] - segs[0][0, 2]))) <= ch + 1e-6
    assert abs(landing[2] - (segs[1][0, 2] + t1 * (segs[1][1, 2] - segs[1][0, 2]))) <= ch + 1e-6
    assert res.cost > res.length  # the link adds its cost
    # docs/path-queries.md: walking costs length x stance multiplier, a link segment
    # max(link_cost x kind multiplier, its straight length)
    seg = np.linalg.norm(np.diff(res.points, axis=0), axis=1)
    mult = np.asarray(AgentFilter().stance_cost)[res.stances[:-1]]
    on_link = res.point_links[:-1] >= 0
    link_cost = nm.link_cost[res.point_links[:-1][on_link]]
    expected = (seg[~on_link] * mult[~on_link]).sum() + np.maximum(link_cost,
                                                                   seg[on_link]).sum()
    assert res.cost == pytest.approx(expected, rel=1e-9)

    walk_only = q.find_path((2.0, 3.0, 0.0), (10.0, 2.0, 0.0), AgentFilter(links=()))
    assert not walk_only.found
    assert walk_only.points[-1][0] < 6.0  # stuck on the first platform


def test_batch_over_baked_links(gap_navmesh):
    nm = gap_navmesh
    q = NavQuery(nm)
    rng = np.random.default_rng(2)
    starts = np.c_[rng.uniform(1, 5, 40), rng.uniform(1, 5, 40), np.zeros(40)]
    goals = np.c_[rng.uniform(8, 12, 40), rng.uniform(1, 5, 40), np.zeros(40)]
    batch = q.find_paths(starts, goals)
    assert batch.found.all()
    jumps = np.bincount(np.repeat(np.arange(40), np.diff(batch.point_offsets)),
                        weights=(batch.flags == 1), minlength=40)
    assert (jumps == 1).all()
