"""Issue 12, bake side: tall scenes, the memory guard, degenerate triangles far from the
origin, the region-merge crash and wrongly typed input. Each gets a clear error naming the
argument or setting (and the figure), or a correct result; never a raw traceback."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from scenes import Scene, self_stacked_region_scene

from blender_navjump.core import BakeSettings, SettingsError, bake
from blender_navjump.core.pipeline import BakeInputError
from blender_navjump.core.settings import (
    MAX_HEIGHT_LEVELS,
    MemoryLimit,
    cgroup_headroom,
    memory_limit,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def stacked_floors(n, side, gap=4.5):
    s = Scene()
    for k in range(n):
        s.floor(0, 0, side, side, k * gap)
    return s.arrays()


# ------------------------------------------------------------------------ tall scenes
def test_tall_scene_is_refused_with_the_figure_and_the_setting():
    v, t = Scene().floor(0, 0, 5, 5, 0.0).floor(0, 0, 5, 5, 5e8).arrays()
    with pytest.raises(SettingsError, match=r"cell_height.*5e\+08 m tall.*2,500,000,001") as e:
        bake(v, t)
    assert e.value.setting == "cell_height"


def test_tallest_allowed_scene_keeps_its_heights():
    # just inside the limit: both floors must come back at their own heights
    top = 0.2 * (MAX_HEIGHT_LEVELS - 16)
    v, t = Scene().floor(0, 0, 6, 6, 0.0).floor(0, 0, 6, 6, top).arrays()
    nm = bake(v, t, BakeSettings(agent_radius=0.3))
    z = np.unique(np.round(nm.vertices[:, 2], 3))
    assert z.min() == pytest.approx(0.0, abs=0.3)  # a span top is up to a cell above
    assert z.max() == pytest.approx(top, abs=0.3)
    assert set(np.round(z, -3)) == {0.0, round(top, -3)}


def test_tall_scene_refused_by_height_not_by_memory():
    # the refusal comes before any work: a 1 km x 1 m strip is fine, 1e9 m tall is not
    v, t = Scene().floor(0, 0, 2, 2, -5e8).floor(0, 0, 2, 2, 5e8).arrays()
    with pytest.raises(SettingsError, match="cell_height"):
        bake(v, t, BakeSettings(cell_height=2.0, agent_height=6.0))


# ----------------------------------------------------------------------- memory guard
def test_memory_guard_counts_the_real_spans_of_stacked_floors():
    # 10 floors of 60 m: 40 k cells but 400 k spans (~110 MiB at the measured ~280 B/span).
    # A guard that assumes 1.5 spans per cell estimates ~5 MiB and lets it through.
    v, t = stacked_floors(10, 60.0)
    with pytest.raises(SettingsError, match=r"cell_size: .* 4\d\d,\d{3} spans would need "
                                            r"about 0\.1\d GiB.*memory_limit_gb") as e:
        bake(v, t, BakeSettings(memory_limit_gb=0.05))
    assert e.value.setting == "cell_size"
    # with room it bakes: the guard is not just refusing everything
    nm = bake(*stacked_floors(3, 12.0), BakeSettings(memory_limit_gb=0.05))
    assert nm.polygon_count > 0 and nm.stats["spans"] >= 3 * 40 * 40


def test_memory_guard_checks_rasterising_before_it_starts():
    # 40 M spans to rasterise (~1 GiB): refused before rasterising, naming the triangles
    v, t = stacked_floors(40, 300.0, gap=3.0)
    with pytest.raises(SettingsError, match=r"rasterising 80 triangles \(up to [\d,]+ spans\)"):
        bake(v, t, BakeSettings(memory_limit_gb=0.5))


def test_memory_guard_honours_the_process_limit():
    """``ulimit -v`` (RLIMIT_AS) is a hard limit: the guard reads it, and the bake fails
    with the figure instead of a raw MemoryError (or a crash) in a kernel."""
    code = textwrap.dedent("""
        import resource, sys
        import numpy as np
        sys.path.insert(0, sys.argv[1] + "/tests")
        from scenes import Scene
        from blender_navjump.core import bake, SettingsError
        bake(*Scene().floor(0, 0, 3, 3).arrays())  # kernels loaded before the limit
        size = 0
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                size = int(line.split()[1]) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size + 64 * 2**20, resource.RLIM_INFINITY))
        s = Scene()
        for k in range(10):
            s.floor(0, 0, 60, 60, 4.5 * k)
        try:
            bake(*s.arrays())
        except SettingsError as exc:
            print("REFUSED", exc)
        else:
            print("BAKED")
    """)
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", code, ROOT], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "REFUSED cell_size:" in out.stdout, out.stdout + out.stderr[-2000:]
    assert "ulimit -v" in out.stdout


def _cgroup_tree(tmp_path, proc_lines, files):
    tmp_path.mkdir(parents=True, exist_ok=True)
    proc = tmp_path / "cgroup"
    proc.write_text("\n".join(proc_lines) + "\n")
    root = tmp_path / "fs"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return str(proc), str(root)


def test_cgroup_v2_memory_max_of_an_ancestor_is_honoured(tmp_path):
    proc, root = _cgroup_tree(tmp_path, ["0::/user.slice/job"], {
        "user.slice/job/memory.max": "max\n",
        "user.slice/job/memory.current": "100\n",
        "user.slice/memory.max": str(3 * 2**30) + "\n",
        "user.slice/memory.current": str(2**30) + "\n",
    })
    got = cgroup_headroom(proc, root)
    assert got.available == 2 * 2**30
    assert "user.slice/memory.max" in got.source


def test_cgroup_v1_limit_in_bytes_and_no_limit(tmp_path):
    proc, root = _cgroup_tree(tmp_path, ["4:memory:/docker/abc", "1:cpu:/"], {
        "memory/docker/abc/memory.limit_in_bytes": str(512 * 2**20),
        "memory/docker/abc/memory.usage_in_bytes": str(12 * 2**20),
        "memory/memory.limit_in_bytes": "9223372036854771712",
    })
    got = cgroup_headroom(proc, root)
    assert got.available == 500 * 2**20 and "memory.limit_in_bytes" in got.source
    proc, root = _cgroup_tree(tmp_path / "none", ["4:memory:/"], {
        "memory/memory.limit_in_bytes": "9223372036854771712"})
    assert cgroup_headroom(proc, root) is None


def test_memory_limit_setting_is_capped_by_hard_limits():
    lim = memory_limit(BakeSettings(memory_limit_gb=0.5))
    assert isinstance(lim, MemoryLimit)
    assert lim.available <= 0.5 * 2**30


# --------------------------------------------------------------- degenerate triangles
@pytest.mark.parametrize("offset", [0.0, 1e6, 1e9])
def test_small_triangles_far_from_the_origin_are_not_degenerate(offset):
    v, t = Scene().floor(0, 0, 6, 6).arrays()
    v[:, :2] += offset
    nm = bake(v, t, BakeSettings(agent_radius=0.3))
    assert nm.stats["degenerate_triangles_skipped"] == 0
    assert nm.polygon_count > 0
    assert nm.vertices[:, 0].min() >= offset - 0.5


def test_three_centimetre_triangles_a_billion_metres_away():
    o = 1e9
    v = np.array([[o, o, 0], [o + 0.03, o, 0], [o, o + 0.03, 0]])
    # too small to make a polygon, but not "degenerate": the bake runs and finds nothing
    nm = bake(v, np.array([[0, 1, 2]]), BakeSettings(agent_radius=0.0))
    assert nm.stats["degenerate_triangles_skipped"] == 0


def test_slivers_are_degenerate_wherever_they_are():
    for o in (0.0, 1e9):
        v = np.array([[o, o, 0], [o + 1, o, 0], [o + 2, o, 0]])
        with pytest.raises(BakeInputError, match="degenerate"):
            bake(v, np.array([[0, 1, 2]]))


# -------------------------------------------------------------- extreme coordinates
@pytest.mark.parametrize("big", [1.7e308, -1.7e308, 1e200, 2e12])
def test_extreme_coordinates_are_refused(big):
    v, t = Scene().floor(0, 0, 3, 3).arrays()
    v[0, 0] = big
    with pytest.raises(BakeInputError, match=r"vertices: coordinate .* beyond"):
        bake(v, t)


def test_huge_extent_is_refused_by_the_grid_guard():
    v, t = Scene().floor(-1e11, -1e11, 1e11, 1e11).arrays()
    with pytest.raises(SettingsError, match=r"cell_size: .* cells, more than the"):
        bake(v, t)


# ------------------------------------------------------------------- region merging
def test_monotone_region_merge_with_a_self_stacked_region():
    nm = bake(*self_stacked_region_scene())
    assert nm.polygon_count > 0
    assert np.isfinite(nm.vertices).all()
    # regions are compact ids 1..max and every polygon has one
    assert nm.polygon_region.min() >= 1


# ------------------------------------------------------------------- wrong types
FLOOR_V, FLOOR_T = Scene().floor(0, 0, 3, 3).arrays()


@pytest.mark.parametrize("vertices, triangles, match", [
    ("abc", FLOOR_T, "vertices: expected an array of numbers, got a str"),
    ([[0, 0, 0], [1, 0], [0, 1, 0]], [[0, 1, 2]], "vertices: not a regular array"),
    ({"a": 1}, FLOOR_T, "vertices: expected an array of numbers, got a dict"),
    ([["a", "b", "c"]] * 3, [[0, 1, 2]], "vertices: expected numbers"),
    (FLOOR_V, "0 1 2", "triangles: expected an array of numbers, got a str"),
    (FLOOR_V, [[0, 1], [0, 1, 2]], "triangles: not a regular array"),
    (FLOOR_V, [["0", "1", "2"]], "triangles: expected numbers"),
    (FLOOR_V, [[True, False, True]], "triangles: expected numbers"),
    (FLOOR_V, [[0, 1, 2.5]], r"triangles: index 2\.5 in triangle 0 is not a whole number"),
    (FLOOR_V, [[0, 1, np.nan]], "triangles: index nan in triangle 0 is not a whole number"),
    (FLOOR_V, [[0, 1, 1e20]], r"triangles: index 1e\+20 in triangle 0 is out of range"),
    (FLOOR_V, [[0, 1, -(2**40)]], r"index -1099511627776 in triangle 0 is out of range"),
])
def test_wrongly_typed_geometry(vertices, triangles, match):
    with pytest.raises(BakeInputError, match=match):
        bake(vertices, triangles)


def test_walkable_flags_of_the_wrong_type():
    with pytest.raises(BakeInputError, match="walkable: expected numbers"):
        bake(FLOOR_V, FLOOR_T, walkable=["yes", "no"])
    with pytest.raises(BakeInputError, match="walkable: expected 2 flags, got 3"):
        bake(FLOOR_V, FLOOR_T, walkable=[True, True, False])


@pytest.mark.parametrize("settings, exc, match", [
    ({"cell_size": 0.3}, TypeError, "settings: expected a BakeSettings, got a dict"),
    ("fast", TypeError, "settings: expected a BakeSettings, got a str"),
    (BakeSettings(min_link_width="wide"), SettingsError, "min_link_width: must be a number"),
    (BakeSettings(min_link_width=float("nan")), SettingsError, "min_link_width: must be "
                                                               "finite"),
    (BakeSettings(cell_size="0.3"), SettingsError, "cell_size: must be a number"),
    (BakeSettings(verts_per_poly=[6]), SettingsError, "verts_per_poly: must be a number"),
    (BakeSettings(multi_stance="yes"), SettingsError, "multi_stance: must be true or false"),
    (BakeSettings(partition=["watershed"]), SettingsError, "partition: must be one of"),
    (BakeSettings(agent_radius=True), SettingsError, "agent_radius: must be a number"),
])
def test_wrongly_typed_settings(settings, exc, match):
    with pytest.raises(exc, match=match):
        bake(FLOOR_V, FLOOR_T, settings)


def test_from_dict_of_the_wrong_type():
    with pytest.raises(TypeError, match="settings: expected a mapping"):
        BakeSettings.from_dict([("cell_size", 0.3)])
    with pytest.raises(SettingsError, match="cell_sise: unknown setting"):
        BakeSettings.from_dict({"cell_sise": 0.3})


def test_an_allocation_that_fails_anyway_names_the_stage_and_the_limit():
    """The estimate is not exact: a stage whose allocation still fails gives the figure,
    not a raw MemoryError (here a real numpy allocation of 2**62 bytes)."""
    from blender_navjump.core.stages import _run

    with pytest.raises(SettingsError, match=r"cell_size: out of memory in the regions stage "
                                            r"\(\d+\.\d\d GiB left under the memory_limit_gb\)"):
        _run("regions", BakeSettings(memory_limit_gb=1.0), np.empty, 2**62, np.uint8)
