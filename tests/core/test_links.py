"""Automatic jump links on procedural levels with known answers, checked by the
independent oracle (tests/link_oracle.py, from the triangles only)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from link_levels import (
    FINE,
    gap_and_ledge,
    ledge,
    ledge_with_walls_and_pillar,
    lone_platform,
    low_ceiling_over_gap,
    narrow_beam,
    offset_platform,
    overhang,
    pillar_in_gap,
    slot,
    terrace_patch,
    terraced_level,
    thin_platforms,
    two_platforms,
    wall_in_gap,
    wall_on_floor,
)
from link_oracle import check_links
from script_modules import load_script

from blender_navjump.core import BakeSettings, SettingsError, bake
from blender_navjump.core.debug import BakeDebug
from blender_navjump.core.navmesh import LINK_DROP, LINK_JUMP_ACROSS, LINK_JUMP_UP, NavMesh


def bake_links(scene, **overrides):
    v, t = scene.arrays()
    st = BakeSettings(links_enabled=True, **overrides)
    return bake(v, t, st), v, t, st


def assert_valid(nm, v, t, st):
    problems = check_links(nm, v, t, st)
    assert problems == [], "\n".join(problems[:20])
    assert np.all(nm.link_start_poly != nm.link_end_poly)


def kinds(nm):
    return {k: int((nm.link_kind == i).sum())
            for i, k in enumerate(("drop", "jump_across", "jump_up"))}


def y_extent(nm, z=None):
    """y range of the navmesh polygons (optionally only those at height ~z)."""
    ys = []
    for p in range(nm.polygon_count):
        pts = nm.polygon_vertices(p)
        if z is None or abs(pts[:, 2].mean() - z) < 0.3:
            ys.append(pts[:, 1])
    ys = np.concatenate(ys)
    return ys.min(), ys.max()


# --------------------------------------------------------------------- gaps


@pytest.mark.parametrize("gap", [1.0, 2.0, 2.9, 3.1, 5.0])
def test_gap_links_exactly_within_reach(gap):
    nm, v, t, st = bake_links(two_platforms(gap))
    assert_valid(nm, v, t, st)
    if gap > st.max_jump_distance:
        assert nm.link_count == 0, kinds(nm)
        return
    assert kinds(nm) == {"drop": 0, "jump_across": 1, "jump_up": 0}
    assert nm.link_bidirectional[0]
    start, end = nm.link_start[0], nm.link_end[0]
    # one platform to the other, across the gap
    sides = sorted([start[:, 0].mean(), end[:, 0].mean()])
    assert sides[0] < 10.0 and sides[1] > 10.0 + gap
    # across the whole width: the link spans the navmesh border up to half a sample
    lo, hi = y_extent(nm)
    seg_lo, seg_hi = sorted(start[:, 1])
    assert seg_lo <= lo + 0.5 * st.cell_size + 1e-6
    assert seg_hi >= hi - 0.5 * st.cell_size - 1e-6
    # apex, length, cost as documented
    assert nm.link_apex[0] == pytest.approx(st.max_jump_height)
    assert nm.link_length[0] > abs(end[:, 0].mean() - start[:, 0].mean())
    assert nm.link_cost[0] == pytest.approx(st.cost_jump_across * nm.link_length[0])


def test_gap_reach_follows_max_jump_distance():
    nm, v, t, st = bake_links(two_platforms(3.5), max_jump_distance=4.0)
    assert kinds(nm)["jump_across"] == 1
    assert_valid(nm, v, t, st)
    nm, *_ = bake_links(two_platforms(3.5), max_jump_distance=4.0, jump_across_enabled=False)
    assert nm.link_count == 0


# ------------------------------------------------------------------- ledges


@pytest.mark.parametrize("height", [0.5, 0.95, 1.5, 3.9, 4.5])
def test_ledge_heights(height):
    nm, v, t, st = bake_links(ledge(height), **FINE)
    assert_valid(nm, v, t, st)
    got = kinds(nm)
    if height <= st.agent_max_climb:
        # a step: walkable, the navmesh joins both levels and needs no link
        assert nm.link_count == 0, got
        assert (nm.neighbours >= 0).any()
        return
    if height <= st.max_jump_height:
        # jump up, and the drop back down is the same link used the other way
        assert got == {"drop": 0, "jump_across": 0, "jump_up": 1}
        assert nm.link_bidirectional[0]
        assert nm.link_start[0, :, 2].mean() < nm.link_end[0, :, 2].mean()
    elif height <= st.max_drop_height:
        assert got == {"drop": 1, "jump_across": 0, "jump_up": 0}
        assert not nm.link_bidirectional[0]
        assert nm.link_start[0, :, 2].mean() > nm.link_end[0, :, 2].mean() + height - 0.2
    else:
        assert nm.link_count == 0, got
        return
    lo, hi = y_extent(nm)
    seg = sorted(nm.link_start[0, :, 1])
    assert seg[0] <= lo + 0.5 * st.cell_size + 1e-6 and seg[1] >= hi - 0.5 * st.cell_size - 1e-6


def test_drop_walks_off_the_ledge():
    nm, v, t, st = bake_links(ledge(3.9), **FINE)
    assert nm.link_kind.tolist() == [LINK_DROP]
    assert nm.link_apex[0] == 0.0  # walked off, no jump
    # it lands clear of the wall: at least an agent radius out from the ledge (x = 10)
    assert nm.link_end[0, :, 0].min() > 10.0 + st.agent_radius


def test_link_does_not_grow_along_a_ledge_past_where_the_ground_steps():
    """The one jump up here is from the 2.762 box at (2.5-5, 5-7.5) onto the 3.762 box
    beside it. Along the same straight line, the box below them is 3.262 against 3.012: a
    0.25 m step down, walkable. Growing the link along its line while its (fitted) end
    heights stayed within climb of some ground took it 2.5 m over that box, its start
    floating 0.5 m above the ground: a "1 m jump up" where the agent steps 0.25 m down.
    The kind is judged on the ground under both ends too (links_model.ground_kind)."""
    nm, v, t, st = bake_links(terrace_patch())
    assert_valid(nm, v, t, st)
    ups = np.nonzero(nm.link_kind == LINK_JUMP_UP)[0]
    assert ups.size == 1, kinds(nm)
    start = nm.link_start[ups[0]]
    # on the 2.762 box's side of the ledge (the navmesh border, an agent radius and the
    # voxels' rounding in), from the box's near end to its far end
    assert np.all((start[:, 0] < 5.0) & (start[:, 0] >= 5.0 - st.agent_radius
                                         - st.cell_size)), start
    assert start[:, 1].min() >= 5.0 - 0.5 * st.cell_size, start
    assert start[:, 1].max() >= 7.5 - 0.5 * st.cell_size, start
    assert nm.link_bidirectional[ups[0]]


FINE_CELLS = {"cell_size": 0.15, "cell_height": 0.1}


@pytest.mark.parametrize("boxes, subdiv, seed, cells", [(40, 1, 0, {}), (60, 1, 1, {}),
                                                        (60, 2, 0, FINE_CELLS)])
def test_links_of_the_terraced_benchmark_level_are_valid(boxes, subdiv, seed, cells):
    """Every link valid by the oracle: its ends within two cell heights of the ground
    under them, and of its kind on that ground too. With the kind judged on a link's
    fitted heights alone and its ends allowed anywhere within climb (0.9 m) of the
    ground, grown links here ran on over the next box, 0.25-0.75 m off its ground. At
    0.15 m cells a link's end on the line where two boxes meet, also a boundary of the
    ground look-up's bins, lay a rounding error on the other side (4e-15 m on the
    300-box level): the look-up missed the box beyond, a walkable step, and took the line
    for a ledge (links_geom._support_bins)."""
    v, t = terraced_level(boxes, subdiv, seed)
    st = BakeSettings(links_enabled=True, **cells)
    nm = bake(v, t, st)
    assert nm.link_count > 10
    assert_valid(nm, v, t, st)


@pytest.mark.parametrize("boxes, subdiv, seed", [(60, 1, 1), (100, 1, 0)])
def test_a_rise_of_exactly_the_climb_is_a_step_everywhere(boxes, subdiv, seed):
    """Terraces 0.25 m apart at agent_max_climb 0.5: many rises are exactly the climb,
    computed as differences of heights that carry rounding errors (1e-15 m). A tie is a
    step, in the kinds, the ground within climb and the body's bottom alike
    (settings.CLIMB_TIE). With the exact climb, rounding decided: 0.50 m "drops" and
    "jumps up" the oracle calls steps, and run-outs measured to a 0.50 m step taken as a
    ledge (1 and 8 oracle errors on these two levels)."""
    v, t = terraced_level(boxes, subdiv, seed)
    st = BakeSettings(links_enabled=True, agent_max_climb=0.5)
    nm = bake(v, t, st)
    assert nm.link_count > 10
    assert_valid(nm, v, t, st)


def test_a_drop_stored_as_its_jump_back_is_valid_at_the_jump_ups_positions(recast_data):
    """A drop whose way back is a valid jump up is stored as that jump up: its start is
    then the drop's landing segment, on whose length the oracle counts its test
    positions. Here (dungeon.obj tiled 5 x 5, the bench's tiling) one landing segment gave
    8 positions and the take-off segment 7, both ways tested at the 7 only: the jump up
    took off without ground at one of the 8 (links._check_flips)."""
    from blender_navjump.core.objio import read_obj

    v, t = load_script("bench").tiled(*read_obj(recast_data / "dungeon.obj", up="y"), 5)
    st = BakeSettings(links_enabled=True, agent_max_climb=0.4, agent_radius=0.4,
                      multi_stance=True)
    nm = bake(v, t, st)
    # 100 (132 before a jump up needed min_link_width at its upper end too, Stop 37)
    up = nm.link_kind == LINK_JUMP_UP
    assert up.sum() > 90
    # every link is min_link_width (the agent's diameter) wide on its upper segment: a
    # jump up's end (found as a jump up or stored from a drop), the others' start
    upper = np.where(up[:, None, None], nm.link_end, nm.link_start)
    assert (np.linalg.norm(upper[:, 1] - upper[:, 0], axis=1) >= 2 * 0.4 - 1e-9).all()
    assert_valid(nm, v, t, st)


def test_kind_switches_and_jump_height_zero():
    nm, *_ = bake_links(ledge(0.95), drop_enabled=False, jump_up_enabled=False,
                        **FINE)
    assert nm.link_count == 0
    nm, *_ = bake_links(ledge(0.95), jump_up_enabled=False, **FINE)
    assert nm.link_kind.tolist() == [LINK_DROP]  # the drop alone, one way
    assert not nm.link_bidirectional[0]
    nm, v, t, st = bake_links(ledge(1.5), max_jump_height=0.0, **FINE)
    assert nm.link_kind.tolist() == [LINK_DROP]
    assert nm.link_apex[0] == 0.0
    assert_valid(nm, v, t, st)


# ------------------------------------------------------------ obstructions


def test_low_ceiling_over_gap_blocks_the_arc():
    # a slab over the gap only: walking clearance on the platforms is untouched
    st0 = BakeSettings()
    # the arc's apex plus the agent's height reaches 3 m above the platforms
    nm, v, t, st = bake_links(low_ceiling_over_gap(st0.max_jump_height + st0.agent_height
                                                   - 0.6))
    assert kinds(nm)["jump_across"] == 0, kinds(nm)
    assert_valid(nm, v, t, st)  # (the slab's top gets drops down to the platforms)
    nm, v, t, st = bake_links(low_ceiling_over_gap(st0.max_jump_height + st0.agent_height
                                                   + 0.4))
    assert kinds(nm)["jump_across"] == 1
    assert_valid(nm, v, t, st)


def test_pillar_in_gap_splits_the_link():
    nm, v, t, st = bake_links(pillar_in_gap())  # 0.3 m pillar in the middle of the gap
    assert_valid(nm, v, t, st)
    assert kinds(nm)["jump_across"] == 2
    # neither link passes the pillar: the agent (radius less the tolerance) keeps clear
    clear = 0.15 + st.agent_radius - 0.1
    for k in range(nm.link_count):
        ys = np.concatenate([nm.link_start[k, :, 1], nm.link_end[k, :, 1]])
        assert ys.max() <= 5.0 - clear + 1e-6 or ys.min() >= 5.0 + clear - 1e-6


def test_wall_between_platforms_has_no_link():
    nm, v, t, st = bake_links(wall_on_floor())  # a wall splitting one floor in two
    assert nm.link_count == 0, kinds(nm)
    nm, v, t, st = bake_links(wall_in_gap())  # the same wall standing in a 2 m gap
    assert nm.link_count == 0, kinds(nm)


def test_narrow_beam_is_never_a_landing():
    nm, v, t, st = bake_links(narrow_beam())  # 0.4 m beam: thinner than the agent
    assert_valid(nm, v, t, st)
    assert kinds(nm) == {"drop": 0, "jump_across": 1, "jump_up": 0}
    for seg in (nm.link_start[0], nm.link_end[0]):
        x = seg[:, 0].mean()
        assert x < 10.0 or x > 12.4  # on a platform, never on the beam


def test_overhang_over_the_landing():
    # a 3 m cliff, a slab 1.5 m over its foot
    nm, v, t, st = bake_links(overhang(), **FINE)
    assert_valid(nm, v, t, st)
    assert kinds(nm)["drop"] >= 1
    drops = nm.link_kind == LINK_DROP
    # no landing under the slab (too low to stand): all beyond it
    assert nm.link_end[drops, :, 0].min() > 11.5 + st.agent_radius - 0.1


def test_slot_links_join_different_polygons():
    # a U-shaped platform: a 1.5 m slot cut into it, jumpable across
    nm, v, t, st = bake_links(slot())
    assert_valid(nm, v, t, st)
    assert kinds(nm)["jump_across"] >= 1


# --------------------------------------------------------------- bad input


@pytest.mark.parametrize("name,value", [
    ("max_jump_height", -1.0), ("max_jump_distance", -0.5), ("max_drop_height", -2.0),
    ("gravity", 0.0), ("link_sample_step", -0.3), ("link_search_angle", 90.0),
    ("cost_drop", -1.0), ("max_jump_distance", 100.0)])
def test_settings_out_of_range_are_refused(name, value):
    with pytest.raises(SettingsError) as err:
        BakeSettings(links_enabled=True, **{name: value}).validate()
    assert err.value.setting == name


def test_search_too_wide_for_the_grid_is_refused():
    with pytest.raises(SettingsError) as err:
        BakeSettings(links_enabled=True, cell_size=0.1, max_jump_distance=25.0).validate()
    assert "200 cells" in str(err.value)


def test_sample_step_finer_than_a_quarter_cell_is_refused():
    v, t = two_platforms(1.0).arrays()
    with pytest.raises(SettingsError) as err:
        bake(v, t, BakeSettings(links_enabled=True, link_sample_step=0.01))
    assert err.value.setting == "link_sample_step"


def test_navmesh_without_border_edges():
    from blender_navjump.core import links as links_mod
    from blender_navjump.core.settings import voxel_config

    nm, v, t, st = bake_links(two_platforms(1.0))
    nm.neighbours[:] = np.where(nm.polygons >= 0, 0, -1)  # pretend every edge is shared
    cfg = voxel_config(st, v.min(axis=0), v.max(axis=0))
    info = links_mod.build_links(nm, None, None, cfg, st, v, t)
    assert nm.link_count == 0
    assert any("no border edges" in m for m in info["messages"])


def test_platform_thinner_than_a_cell():
    # a 0.1 m thin wall on a platform, a 0.1 m ledge high up, out of reach of all
    nm, v, t, st = bake_links(thin_platforms())
    assert_valid(nm, v, t, st)
    assert kinds(nm)["jump_across"] >= 1


def test_deterministic_and_all_kinds_off():
    s = gap_and_ledge()
    nm1, *_ = bake_links(s)
    assert kinds(nm1)["drop"] >= 1 and kinds(nm1)["jump_across"] >= 1
    nm2, *_ = bake_links(s)
    for name in ("link_kind", "link_start", "link_end", "link_bidirectional",
                 "link_start_poly", "link_end_poly", "link_apex", "link_length", "link_cost"):
        assert np.array_equal(getattr(nm1, name), getattr(nm2, name)), name
    nm, *_ = bake_links(s, drop_enabled=False, jump_across_enabled=False,
                        jump_up_enabled=False)
    assert nm.link_count == 0


def test_links_survive_save_and_load(tmp_path):
    nm, *_ = bake_links(ledge(0.95), **FINE)
    path = tmp_path / "links.npz"
    nm.save(path)
    back = NavMesh.load(path)
    assert back.equals(nm)
    assert back.link_kind.tolist() == [LINK_JUMP_UP]
    assert nm.stats["links"] == {"drop": 0, "jump_across": 0, "jump_up": 1}


def test_min_link_width_drops_narrow_links():
    nm, *_ = bake_links(two_platforms(1.0, width=3.0))
    assert nm.link_count == 1
    width = float(np.linalg.norm(nm.link_start[0, 1] - nm.link_start[0, 0]))
    nm, *_ = bake_links(two_platforms(1.0, width=3.0), min_link_width=width + 0.05)
    assert nm.link_count == 0


def test_diagonal_search_finds_offset_platform():
    # the far platform only overlaps the near one's edge by a corner: along the normal
    # from most samples there is nothing, 30 degrees off it there is
    s = offset_platform()
    nm, v, t, st = bake_links(s, link_search_angle=0.0, min_link_width=0.0)
    straight = nm.link_count
    nm, v, t, st = bake_links(s, link_search_angle=45.0, min_link_width=0.0)
    assert_valid(nm, v, t, st)
    assert nm.link_count >= straight


# ------------------------------------------------------ Recast sample meshes


def border_edges(nm):
    out = []
    for p in range(nm.polygon_count):
        pts = nm.polygon_vertices(p)
        n = len(pts)
        for i in range(n):
            if nm.neighbours[p, i] < 0:
                out.append((pts[i], pts[(i + 1) % n]))
    return out


def _covers(seg, edge, tol):
    """The segment runs past the middle of the border edge (seen from above, within tol): a
    link's start line is fitted along the true edge and may span several border edges."""
    m = 0.5 * (edge[0][:2] + edge[1][:2])
    a, b = seg[0][:2], seg[1][:2]
    d = b - a
    t = float(np.clip((m - a) @ d / max(float(d @ d), 1e-12), 0.0, 1.0))
    return float(np.hypot(*(a + t * d - m))) <= tol


@pytest.mark.parametrize("mesh", ["dungeon", "nav_test"])
def test_recast_sample_meshes(recast_data, mesh, capsys):
    from blender_navjump.core.objio import read_obj

    v, t = read_obj(recast_data / f"{mesh}.obj", up="y")
    st = BakeSettings(links_enabled=True)
    nm = bake(v, t, st)
    assert_valid(nm, v, t, st)
    edges = border_edges(nm)
    linked = 0
    for e in edges:
        segs = [nm.link_start[k] for k in range(nm.link_count)]
        segs += [nm.link_end[k] for k in range(nm.link_count) if nm.link_bidirectional[k]]
        if any(_covers(sg, e, st.agent_radius + st.cell_size) for sg in segs):
            linked += 1
    share = linked / max(len(edges), 1)
    with capsys.disabled():
        print(f"\n{mesh}: links {nm.stats['links']}, border edges {len(edges)}, "
              f"with a link {linked} ({100 * share:.1f}%), links "
              f"{nm.stats['timings_ms']['links']:.1f} ms")
    assert 0 < linked <= len(edges) and 0.0 < share <= 1.0
    assert sum(nm.stats["links"].values()) == nm.link_count
    assert math.isfinite(nm.link_cost.sum())
    assert nm.link_kind.dtype == np.int8 and nm.link_start.shape == (nm.link_count, 2, 3)
    assert set(np.unique(nm.link_kind)) <= {LINK_DROP, LINK_JUMP_ACROSS, LINK_JUMP_UP}


def test_validation_tests_each_position_once():
    """A straight gap: each side's link is fitted to a whole number of test steps (half a
    cell of its width), its ends grow one step at a time and only the positions growth
    did not test are tested after it. So the validation tests each of the link's positions
    (the oracle's) once, plus the failing growth step at each end; the old growth (a
    quarter cell at a time, then the grown link tested whole) tested every grown position
    twice."""
    nm, v, t, st = bake_links(two_platforms(2.0))
    assert_valid(nm, v, t, st)
    assert kinds(nm) == {"drop": 0, "jump_across": 1, "jump_up": 0}
    width = float(np.linalg.norm(nm.link_start[0, 1] - nm.link_start[0, 0]))
    n = width / (0.5 * st.cell_size)
    assert abs(n - round(n)) < 1e-6, width
    vc = nm.stats["links_info"]["validate_counts"]  # the generator's summary
    # one link per side (the same width: the scene is symmetric), both valid
    assert vc["parts"] == 2 and vc["full_fails"] == 0, vc
    assert vc["grow_positions"] > 2 * 2, vc  # the ends did grow (the navmesh's corners)
    assert vc["grow_positions"] + vc["full_positions"] == 2 * (round(n) + 1) + 2 * 2, (vc, n)


def test_search_skips_give_the_same_links():
    """A sample's wall test (its first step out blocked: then only jumps up along the
    normal are searched) runs when its march first meets a column that could hold a
    landing, not before: a platform with nothing in reach around it tests no sample, and
    a level with walls, a ledge and a pillar gets the same links as with the test run
    first for every searched sample and every sample beside a first-pass landing
    searched (debug data)."""
    nm, v, t, st = bake_links(lone_platform())  # nothing within the jump and drop limits
    info = nm.stats["links_info"]
    assert nm.link_count == 0
    assert info["samples_searched"] > 0
    assert info["search_counts"]["wall_tests"] == 0

    # walls across the lower floor and along its side, a pillar below the ledge
    nm, v, t, st = bake_links(ledge_with_walls_and_pillar(), **FINE)
    debug = BakeDebug()
    eager = bake(v, t, st, debug=debug)
    lazy_n = nm.stats["links_info"]["search_counts"]["wall_tests"]
    eager_n = eager.stats["links_info"]["search_counts"]["wall_tests"]
    assert eager_n == eager.stats["links_info"]["samples_searched"]
    assert 0 < lazy_n < eager_n, (lazy_n, eager_n)
    # the second pass searches the samples beside a first-pass landing for the kinds found
    # there (debug data: for every kind): the same samples, less marching, the same links
    info, eager_info = nm.stats["links_info"], eager.stats["links_info"]
    assert info["samples_searched"] == eager_info["samples_searched"]
    assert info["search_counts"]["march_steps"] < eager_info["search_counts"]["march_steps"]
    assert nm.link_count >= 1
    for name in ("link_kind", "link_start", "link_end", "link_bidirectional",
                 "link_start_poly", "link_end_poly", "link_length"):
        assert getattr(nm, name).tobytes() == getattr(eager, name).tobytes(), name
    assert_valid(nm, v, t, st)


@settings(max_examples=300, deadline=None)
@given(min_width=st.floats(0.05, 5.0), step=st.floats(0.05, 1.0),
       spacing_share=st.floats(0.5, 1.0))
def test_first_search_pass_stride_meets_every_keepable_run(min_width, step, spacing_share):
    """A run of samples kept by the width rule (n samples a spacing <= step apart reach
    n * spacing >= min_width) always holds a sample whose index is a multiple of the
    stride, and the stride is the largest such: one more would let a keepable run of
    exactly `stride` samples at the full step fall between two first-pass samples."""
    from blender_navjump.core.links import search_stride

    k = search_stride(min_width, step)
    spacing = step * spacing_share
    n_min = math.ceil((min_width - 1e-9) / spacing)  # shortest run kept at this spacing
    assert n_min >= k
    # at the full step a run of k samples is kept: a larger stride would miss one
    assert k * step >= min_width - 1e-6
