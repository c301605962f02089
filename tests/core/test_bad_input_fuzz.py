"""Issue 12: random triangle soups, settings and extreme coordinates never crash a bake.

Every example ends in a clean NavMesh (one that passes the loaded-navmesh check, lies
inside the input's bounds, and survives save/load) or in a clear ValueError/TypeError
(BakeInputError, SettingsError). Anything else, or a hang, fails. ``NAVJUMP_FUZZ_EXAMPLES``
raises the example counts for a long session (tests/fuzz_budget.py).
"""

import os
import tempfile

import numpy as np
from fuzz_budget import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from blender_navjump.core import BakeSettings, SettingsError, bake
from blender_navjump.core.navmesh import NavMesh
from blender_navjump.core.navmesh_check import check_navmesh
from blender_navjump.core.pipeline import BakeInputError

CLEAN_ERRORS = (BakeInputError, SettingsError)


def check_result(nm: NavMesh, v: np.ndarray, t: np.ndarray, s: BakeSettings):
    """What every successful bake must satisfy."""
    nm2 = check_navmesh(nm, "bake result")
    assert nm2 is nm  # a bake gives the canonical dtypes already
    if nm.polygon_count:
        used = v[np.unique(t)]
        lo = used.min(axis=0) - [s.cell_size, s.cell_size, s.cell_height]
        hi = used.max(axis=0) + [s.cell_size, s.cell_size, 2 * s.cell_height]
        for arr in (nm.vertices, nm.detail_vertices):
            assert (arr >= lo).all() and (arr <= hi).all(), "navmesh outside the input"
        assert np.isfinite(nm.surface_area())
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "nm.npz")
        nm.save(path)
        assert NavMesh.load(path).equals(nm)


def soup(draw, n_max=24):
    n = draw(st.integers(1, n_max))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    scale = draw(st.sampled_from([0.05, 1.0, 5.0, 30.0]))
    flat = draw(st.floats(0.0, 1.0))
    v = rng.uniform(-scale, scale, size=(3 * n, 3))
    v[:, 2] *= flat
    # snap some coordinates to a coarse grid: shared edges, coplanar and duplicate points
    if draw(st.booleans()):
        v = np.round(v / (scale / 4)) * (scale / 4)
    t = np.arange(3 * n, dtype=np.int64).reshape(-1, 3)
    if draw(st.booleans()):  # reuse vertices across triangles
        t = rng.integers(0, 3 * n, size=(n, 3))
    offset = draw(st.sampled_from([0.0, 0.0, 1e3, -1e6, 1e9, 5e11]))
    axis_off = rng.uniform(-1, 1, size=3) * offset
    return v + axis_off, t


@st.composite
def scenes(draw):
    return soup(draw)


@st.composite
def bake_settings(draw):
    return BakeSettings(
        cell_size=draw(st.sampled_from([0.1, 0.3, 0.5])),
        cell_height=draw(st.sampled_from([0.1, 0.2])),
        agent_radius=draw(st.sampled_from([0.0, 0.3, 0.6])),
        agent_max_climb=draw(st.sampled_from([0.0, 0.4, 2.0])),
        agent_max_slope=draw(st.sampled_from([0.0, 45.0, 89.0])),
        partition=draw(st.sampled_from(["watershed", "monotone"])),
        region_min_size=draw(st.sampled_from([0, 8])),
        verts_per_poly=draw(st.integers(3, 6)),
        multi_stance=draw(st.booleans()),
        crouch_enabled=draw(st.booleans()),
        links_enabled=draw(st.booleans()),
        detail_sample_dist=draw(st.sampled_from([0.0, 6.0])),
    )


@fuzz_settings(25)
@given(scenes(), bake_settings())
def test_random_soups_bake_cleanly_or_refuse(scene, s):
    v, t = scene
    try:
        nm = bake(v, t, s)
    except CLEAN_ERRORS:
        return
    check_result(nm, v, t, s)


@st.composite
def extreme(draw):
    v, t = soup(draw, 6)
    k = draw(st.integers(0, v.size - 1))
    v.reshape(-1)[k] = draw(st.sampled_from([1.7e308, -1.7e308, 1e300, 2e12, -3e15,
                                             np.inf, -np.inf, np.nan]))
    return v, t


@fuzz_settings(15)
@given(extreme())
def test_extreme_coordinates_are_refused_or_unused(scene):
    v, t = scene
    bad_used = not np.all(np.abs(v[np.unique(t)]) <= 1e12)
    try:
        nm = bake(v, t)
    except CLEAN_ERRORS as exc:
        if bad_used:
            assert "vertices" in str(exc)
        return
    assert not bad_used, "a coordinate beyond 1e12 m was baked"
    check_result(nm, v, t, BakeSettings())


@st.composite
def tall_scenes(draw):
    """Two small floors far apart in height, around and beyond the column limit."""
    z = draw(st.sampled_from([1e3, 5e6, 5.3e7, 5.4e7, 5e8, 1e11]))
    base = draw(st.sampled_from([0.0, -1e6, 1e9]))
    v = np.array([[0, 0, 0], [6, 0, 0], [6, 6, 0], [0, 6, 0]] * 2, float)
    v[4:, 2] = z
    v[:, 2] += base
    t = np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]])
    return v, t, z, base


@fuzz_settings(6)
@given(tall_scenes())
def test_tall_scenes_keep_their_heights_or_refuse(scene):
    v, t, z, base = scene
    try:
        nm = bake(v, t, BakeSettings(agent_radius=0.3))
    except SettingsError as exc:
        assert exc.setting == "cell_height" and "m tall" in str(exc)
        assert z / 0.2 > 2**28 - 2
        return
    heights = np.unique(np.round(nm.vertices[:, 2] - base, -1))
    assert set(heights) <= {0.0, float(np.round(z, -1))}, heights
    assert nm.vertices[:, 2].max() >= base + z - 0.5


WRONG_VALUES = st.one_of(st.text(max_size=5), st.none(), st.lists(st.integers(), max_size=2),
                         st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
                         st.sampled_from([float("nan"), float("inf"), -1e300, 1e300, -1, True]))


@fuzz_settings(30)
@given(st.sampled_from([f for f in BakeSettings().to_dict()]), WRONG_VALUES)
def test_wrongly_typed_or_absurd_settings_are_refused_cleanly(name, value):
    v = np.array([[0, 0, 0], [5, 0, 0], [5, 5, 0], [0, 5, 0]], float)
    t = np.array([[0, 1, 2], [0, 2, 3]])
    try:
        s = BakeSettings.from_dict({**BakeSettings().to_dict(), name: value})
        nm = bake(v, t, s)
    except (SettingsError, BakeInputError) as exc:
        assert str(exc)
        return
    check_result(nm, v, t, s)


@fuzz_settings(30)
@given(st.one_of(st.text(max_size=4), st.none(), st.integers(), st.floats(),
                 st.lists(st.one_of(st.integers(-3, 9), st.floats(), st.text(max_size=1),
                                    st.lists(st.integers(-3, 9), max_size=4)), max_size=4)),
       st.booleans())
def test_wrongly_typed_geometry_is_refused_cleanly(junk, in_vertices):
    v = np.array([[0, 0, 0], [5, 0, 0], [5, 5, 0]], float)
    t = np.array([[0, 1, 2]])
    try:
        nm = bake(junk, t) if in_vertices else bake(v, junk)
    except BakeInputError as exc:
        assert str(exc).startswith(("vertices:", "triangles:", "the scene is empty",
                                    "all triangles are degenerate")), exc
        return
    check_navmesh(nm, "bake result")
