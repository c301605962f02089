"""Rasteriser: spans match the geometry, and row bands on threads give the same spans."""

import numpy as np
import pytest
from scenes import Scene

from blender_navjump.core import rasterize
from blender_navjump.core.settings import BakeSettings, voxel_config


def columns(hf):
    """{column: sorted [(min, max, area), ...]} of a heightfield."""
    out = {}
    for c in np.nonzero(hf.column_head >= 0)[0]:
        s = hf.column_head[c]
        spans = []
        while s != -1:
            spans.append((int(hf.span_min[s]), int(hf.span_max[s]), int(hf.span_area[s])))
            s = hf.span_next[s]
        assert spans == sorted(spans), "spans of a column must be sorted bottom to top"
        for (_a0, a1, _), (b0, _b1, _) in zip(spans, spans[1:], strict=False):
            assert a1 < b0, "spans of a column must not overlap"
        out[int(c)] = spans
    return out


def config(v, **kw):
    return voxel_config(BakeSettings(**kw).validate(), v.min(axis=0), v.max(axis=0))


def test_flat_floor_gives_one_walkable_span_per_cell():
    v, t = Scene().floor(0, 0, 3, 3, z=0.0).arrays()
    cfg = config(v)
    hf = rasterize.rasterize_triangles(v, t, np.ones(len(t), bool), cfg, threads=1)
    cols = columns(hf)
    assert len(cols) == 100  # 3 m / 0.3 m = 10 x 10 cells (the far edge lies on a cell line)
    assert all(spans == [(0, 1, 1)] for spans in cols.values())


def test_steep_triangles_are_not_walkable():
    v, t = Scene().ramp(0, 0, 3, 3, 0.0, 60.0).arrays()
    hf = rasterize.rasterize_triangles(v, t, np.ones(len(t), bool), config(v), threads=1)
    assert (hf.span_area == 0).all()
    v, t = Scene().ramp(0, 0, 3, 3, 0.0, 30.0).arrays()
    hf = rasterize.rasterize_triangles(v, t, np.ones(len(t), bool), config(v), threads=1)
    assert (hf.span_area == 1).all()


def test_obstacle_flag_makes_spans_unwalkable():
    v, t = Scene().floor(0, 0, 3, 3).arrays()
    hf = rasterize.rasterize_triangles(v, t, np.zeros(len(t), bool), config(v), threads=1)
    assert hf.span_min.size and (hf.span_area == 0).all()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_row_bands_match_single_thread(seed, monkeypatch):
    # force banding on this small scene
    monkeypatch.setattr(rasterize, "BAND_MIN_TRIANGLES", 1000)
    monkeypatch.setattr(rasterize, "BAND_MIN_ROWS", 16)
    rng = np.random.default_rng(seed)
    sc = Scene().floor(0, 0, 30, 30)
    for _ in range(400):
        x, y = rng.uniform(0, 28, 2)
        w, d, h = rng.uniform(0.2, 3, 3)
        sc.box(x, y, rng.uniform(0, 2), x + w, y + d, 2 + h)
    v, t = sc.arrays()
    # big triangles crossing many bands, and some sloped ones
    v = np.vstack([v, [[0, 0, 5], [30, 3, 6], [2, 30, 7]]])
    t = np.vstack([t, [[len(v) - 3, len(v) - 2, len(v) - 1]]])
    cfg = config(v)
    walk = np.ones(len(t), bool)
    one = rasterize.rasterize_triangles(v, t, walk, cfg, threads=1)
    many = rasterize.rasterize_triangles(v, t, walk, cfg, threads=3)
    assert len(t) >= 1000  # large enough to be banded
    assert columns(one) == columns(many)
    # the joined bands lie column by column: each column's spans contiguous, bottom-up
    heads = many.column_head[many.column_head >= 0]
    assert np.all(np.diff(heads) > 0) and heads[0] == 0
    inner = many.span_next >= 0
    np.testing.assert_array_equal(many.span_next[inner], np.nonzero(inner)[0] + 1)
    assert np.all(many.span_min[:-1][inner[:-1]] <= many.span_min[1:][inner[:-1]])


def test_spans_come_back_exact_size_and_column_by_column():
    """One pass hands back only the live spans (merged ones freed), each column's spans
    contiguous and bottom-up, whatever order the triangles came in; the same columns with
    or without a span bound."""
    rng = np.random.default_rng(7)
    sc = Scene().floor(0, 0, 12, 12)
    for _ in range(60):
        x, y = rng.uniform(0, 10, 2)
        sc.box(x, y, rng.uniform(0, 2), x + rng.uniform(0.3, 2), y + rng.uniform(0.3, 2),
               2 + rng.uniform(0, 3))
    v, t = sc.arrays()
    t = t[rng.permutation(len(t))]
    cfg = config(v)
    walk = np.ones(len(t), bool)
    hf = rasterize.rasterize_triangles(v, t, walk, cfg, threads=1)
    n = hf.span_min.shape[0]
    assert hf.span_max.shape[0] == hf.span_area.shape[0] == hf.span_next.shape[0] == n
    heads = hf.column_head[hf.column_head >= 0]
    assert heads[0] == 0 and np.all(np.diff(heads) > 0)
    inner = hf.span_next >= 0
    np.testing.assert_array_equal(hf.span_next[inner], np.nonzero(inner)[0] + 1)
    assert (~inner).sum() == heads.shape[0]  # one column end per non-empty column
    assert sum(len(s) for s in columns(hf).values()) == n
    bounded = rasterize.rasterize_triangles(v, t, walk, cfg, threads=1, span_capacity=1)
    assert columns(bounded) == columns(hf)
