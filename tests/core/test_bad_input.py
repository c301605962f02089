"""Bad geometry gets a clear ValueError, never a crash or a partial result."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenes import Scene

from blender_navjump.core import bake
from blender_navjump.core.pipeline import BakeInputError


def floor():
    return Scene().floor(0, 0, 6, 6).arrays()


def test_empty_scene():
    with pytest.raises(BakeInputError, match="empty"):
        bake(np.zeros((0, 3)), np.zeros((0, 3), np.int32))


def test_nan_coordinates():
    v, t = floor()
    v[0, 2] = np.nan
    with pytest.raises(BakeInputError, match="NaN"):
        bake(v, t)


def test_index_out_of_range():
    v, t = floor()
    t[1, 2] = 99
    with pytest.raises(BakeInputError, match="out of range"):
        bake(v, t)


def test_wrong_shapes():
    with pytest.raises(BakeInputError, match=r"\(N, 3\)"):
        bake(np.zeros((4, 2)), np.zeros((1, 3), np.int32))
    with pytest.raises(BakeInputError, match=r"\(M, 3\)"):
        bake(np.zeros((4, 3)), np.zeros((1, 4), np.int32))


def test_all_degenerate():
    v = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2]], float)
    with pytest.raises(BakeInputError, match="degenerate"):
        bake(v, np.array([[0, 1, 2]]))


def test_some_degenerate_are_skipped():
    v, t = floor()
    v = np.vstack([v, [[0, 0, 0], [1, 0, 0], [2, 0, 0]]])
    t = np.vstack([t, [[4, 5, 6]]])
    nm = bake(v, t)
    assert nm.stats["degenerate_triangles_skipped"] == 1
    assert nm.polygon_count > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 30), st.integers(0, 2**31 - 1))
def test_random_triangle_soup_never_crashes(n_tris, seed):
    rng = np.random.default_rng(seed)
    v = rng.uniform(-5, 5, size=(n_tris * 3, 3))
    v[:, 2] *= rng.uniform(0, 1)
    t = np.arange(n_tris * 3, dtype=np.int32).reshape(-1, 3)
    try:
        nm = bake(v, t)
    except BakeInputError:
        return
    assert np.isfinite(nm.vertices).all()
    assert np.isfinite(nm.detail_vertices).all()
    assert np.isfinite(nm.surface_area())
    if nm.polygon_count:
        assert nm.polygons.max() < nm.vertices.shape[0]
