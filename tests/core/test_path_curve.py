"""The smoothed curve through a path's points (core/query/curve.py; docs/path-queries.md,
"Smoothed curve"): property tests of its documented guarantees, and the path API and
command's curve on a real climbing path."""

import json
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blender_navjump.core.query.curve import ALONG_ELEMENT_FLAGS, PathCurve, path_curve

ALONG = sorted(ALONG_ELEMENT_FLAGS)


def seg_distance(p, a, b):
    """Distance of points p (M, 3) to the segment a-b."""
    d = b - a
    ll = float(d @ d)
    t = np.clip(((p - a) @ d) / ll, 0.0, 1.0) if ll > 0 else np.zeros(p.shape[0])
    return np.linalg.norm(p - (a + t[:, None] * d), axis=1)


def polyline_distance(p, pts):
    return np.min([seg_distance(p, pts[i], pts[i + 1]) for i in range(len(pts) - 1)], axis=0)


coords = st.floats(-20, 20, allow_nan=False, width=32)
paths = st.lists(st.tuples(coords, coords, coords), min_size=2, max_size=9)
flag_ids = st.sampled_from([0, 1, 7, 8, 10, 11, 12, 13, 14, 16])


@settings(max_examples=60, deadline=None)
@given(paths, st.lists(flag_ids, min_size=9, max_size=9), st.floats(0.0, 3.0),
       st.floats(0.0, 2.0))
def test_curve_passes_the_points_is_c1_and_stays_near_the_polyline(pts, fl, tension, dev):
    """Property: the curve starts and ends on the path's end points (and passes every
    point), its tangent is continuous at every join (finite differences from either side
    agree), each segment stays within max(|m_i|, |m_i+1|) / 4 <= min(tension * L_i,
    4 max_deviation) / 4 of its own straight segment (so within max_deviation of the
    polyline), and its arc length is at least the polyline's."""
    p = np.array(pts, np.float64)
    flags = np.array(fl[:len(p)], np.int64)
    c = path_curve(p, flags, tension, dev)
    n = len(p)
    ends = c.evaluate([0.0, n - 1.0])
    np.testing.assert_allclose(ends, p[[0, -1]], atol=1e-9)
    np.testing.assert_allclose(c.evaluate(np.arange(n, dtype=float)), p, atol=1e-9)
    # C1: one-sided difference quotients at each join agree (to O(h) times the second
    # derivative, bounded by the points' and tangents' size)
    h = 1e-6
    scale = 1.0 + np.abs(p).max() + np.abs(c.tangents).max()
    for i in range(1, n - 1):
        left = (c.evaluate([i])[0] - c.evaluate([i - h])[0]) / h
        right = (c.evaluate([i + h])[0] - c.evaluate([i])[0]) / h
        np.testing.assert_allclose(left, right, atol=1e-4 * scale)
        np.testing.assert_allclose(left, c.tangents[i], atol=1e-4 * scale)
    # the distance bound, per segment and overall
    length = np.linalg.norm(np.diff(p, axis=0), axis=1)
    tan = np.linalg.norm(c.tangents, axis=1)
    for i in range(n - 1):
        u = np.linspace(i, i + 1, 41)
        d = seg_distance(c.evaluate(u), p[i], p[i + 1])
        bound = max(tan[i], tan[i + 1]) / 4
        assert d.max() <= bound + 1e-9
        assert bound <= min(tension * length[i], 4 * dev) / 4 + 1e-9
    samples = c.sample(0.1)
    assert polyline_distance(samples.points, p).max() <= dev + 1e-9
    assert c.length(0.01) >= length.sum() * (1 - 1e-6) - 1e-9


@settings(max_examples=40, deadline=None)
@given(paths, st.sampled_from(ALONG), st.integers(0, 7))
def test_moves_along_an_element_stay_on_their_segment(pts, flag, which):
    """Property: a segment whose move is along an element (shimmy, ladder or pipe climb)
    is the straight segment itself (the hands stay on the element); where it meets a
    segment in another direction the tangent is zero."""
    p = np.array(pts, np.float64)
    i = which % (len(p) - 1)
    flags = np.zeros(len(p), np.int64)
    flags[i] = flag
    c = path_curve(p, flags)
    d = seg_distance(c.evaluate(np.linspace(i, i + 1, 41)), p[i], p[i + 1])
    assert d.max() <= 1e-9 * (1 + np.abs(p).max())
    for k in (i, i + 1):
        if 0 < k < len(p) - 1:
            a, b = p[k] - p[k - 1], p[k + 1] - p[k]
            na, nb = np.linalg.norm(a), np.linalg.norm(b)
            if na > 0 and nb > 0 and a @ b / (na * nb) < np.cos(np.radians(2.0)):
                assert np.allclose(c.tangents[k], 0.0)


def test_a_right_angle_is_rounded_within_the_bound_and_a_fold_back_rests():
    p = np.array([[0, 0, 0], [4, 0, 0], [4, 4, 0], [0, 4, 0.0]])
    c = path_curve(p, None, 1.0, 0.25)
    # the tangent at the corner: along the bisector, min(4 m, 4 x 0.25 m) = 1 m times
    # cos 45 deg, i.e. (0.5, 0.5, 0); the rounded corner bulges off the first segment
    np.testing.assert_allclose(c.tangents[1], [0.5, 0.5, 0.0], atol=1e-12)
    assert seg_distance(c.evaluate(np.linspace(0.5, 1, 11)), p[0], p[1]).max() > 0.01
    back = path_curve(np.array([[0, 0, 0], [2, 0, 0], [0, 0, 0.0]]))
    np.testing.assert_allclose(back.tangents[1], 0.0)
    # tension 0 is the polyline
    flat = path_curve(p, None, 0.0)
    np.testing.assert_allclose(flat.tangents, 0.0)


def test_degenerate_and_bad_input():
    one = path_curve(np.array([[1.0, 2.0, 3.0]]))
    assert one.sample().points.tolist() == [[1.0, 2.0, 3.0]]
    dup = path_curve(np.array([[0, 0, 0], [0, 0, 0], [1, 0, 0.0]]))
    assert np.isfinite(dup.sample(0.1).points).all()
    with pytest.raises(ValueError, match="2 flags given for 3 path points"):
        path_curve(np.zeros((3, 3)), [0, 0])
    with pytest.raises(ValueError, match="finite"):
        path_curve(np.array([[0, 0, np.nan], [1, 0, 0]]))
    with pytest.raises(ValueError, match="tension"):
        path_curve(np.zeros((2, 3)), None, tension=4)
    with pytest.raises(ValueError, match="max_deviation"):
        path_curve(np.zeros((2, 3)), None, max_deviation=-1)
    c = path_curve(np.array([[0, 0, 0], [1, 0, 0.0]]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        c.evaluate([1.5])
    with pytest.raises(ValueError, match="spacing"):
        c.sample(0)
    assert isinstance(c, PathCurve)


# ------------------------------------------------------------------ on a real climbing path
@pytest.fixture(scope="module")
def ladder_path():
    """A climbing path on the ladder scene of test_climb.py (ground, a 4 m tower, a ladder
    on its east face): walk, ladder on, climb, mount, walk."""
    from scenes import Scene

    from blender_navjump.core import bake
    from blender_navjump.core import climb as C
    from blender_navjump.core.kinds import CLIMB_LADDER
    from blender_navjump.core.query import find_path
    from blender_navjump.core.settings import BakeSettings

    v, t = Scene().floor(-10, -10, 10, 10).box(-4, 0, 0, 4, 4, 4).arrays()
    ladder = np.array([[4, 1.5, 0], [4.2, 2.5, 4]], np.float64)
    scene = types.SimpleNamespace(vertices=v, triangles=t,
                                  climb=[("east-ladder", CLIMB_LADDER, ladder)])
    s = BakeSettings(climbing_enabled=True, auto_ledges=False)
    nm, _ = C.add_climbing(bake(scene.vertices, scene.triangles, s), scene.climb,
                           scene.vertices, scene.triangles, s)
    res = find_path(nm, (8.0, 8.0, 0.0), (0.0, 2.0, 4.0))
    assert res.found and res.climbing
    return nm, res


def test_path_result_curve_keeps_the_ladder_straight(ladder_path):
    _nm, res = ladder_path
    c = res.curve()
    np.testing.assert_allclose(c.evaluate([0, len(res.points) - 1]), res.points[[0, -1]])
    names = res.flag_names
    rungs = [i for i, f in enumerate(names[:-1]) if f == "ladder_climb"]
    assert rungs
    for i in rungs:  # the climb up the ladder is the ladder's axis, not a bulge off it
        d = seg_distance(c.evaluate(np.linspace(i, i + 1, 21)), res.points[i],
                         res.points[i + 1])
        assert d.max() <= 1e-9
    # the climb comes to rest at the ladder's top before mounting (a turn off the axis)
    top = rungs[-1] + 1
    assert names[top] == "mount"
    np.testing.assert_allclose(c.tangents[top], 0.0)
    dist = polyline_distance(c.sample(0.05).points, res.points)
    assert dist.max() <= c.max_deviation + 1e-9
    doc = res.to_dict(curve_spacing=0.5, max_deviation=0.1)
    pts = np.array(doc["curve"])
    np.testing.assert_allclose(pts[[0, -1]], res.points[[0, -1]])
    assert polyline_distance(pts, res.points).max() <= 0.1 + 1e-9
    assert "curve" not in res.to_dict()


def test_path_command_prints_the_curve(ladder_path, tmp_path, capsys):
    from blender_navjump.export.navjump_json import write_json
    from blender_navjump.path_cli import path_command

    nm, res = ladder_path
    write_json(nm, tmp_path / "islands.json")
    args = [str(tmp_path / "islands.json"), "--start", "8", "8", "0", "--goal", "0", "2", "4"]
    assert path_command(args + ["--curve", "0.2", "--curve-max-deviation", "0.1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    curve = np.array(doc["curve"])
    points = np.array(doc["points"])
    assert curve.shape[0] > points.shape[0] and curve.shape[1] == 3
    np.testing.assert_allclose(curve[[0, -1]], points[[0, -1]], atol=1e-9)
    assert polyline_distance(curve, points).max() <= 0.1 + 1e-6
    assert "mount" in doc["flags"]
    assert path_command(args + ["--curve-tension", "2"]) == 2
    assert "--curve" in capsys.readouterr().err
    assert path_command(args + ["--curve", "0.2", "--curve-tension", "5"]) == 2
    assert "tension" in capsys.readouterr().err
