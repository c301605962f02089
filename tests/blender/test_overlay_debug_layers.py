"""Debug layer geometry without Blender (overlay_debug.py): shapes, colours, loops."""

import numpy as np
import pytest

from blender_navjump.blender import overlay_debug as od
from blender_navjump.core.debug import VOXEL_TOP, BakeDebug
from blender_navjump.core.kinds import STANCE_COLORS


def small_debug():
    spans = np.zeros(4, VOXEL_TOP)
    spans["x"] = [0.1, 0.3, 0.5, 0.7]
    spans["z"] = [1.0, 1.0, 2.0, 1.0]
    spans["area"] = [0, 1, 2, 1]
    spans["region"] = [0, 4, 5, 4]
    points = np.array([[0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1],   # a square, region 4
                       [2, 0, 2], [3, 0, 2], [3, 1, 2]], float)      # a triangle, region 5
    return BakeDebug(0.2, 0.1, spans, points, np.array([0, 4, 7]), np.array([4, 5], np.int32))


def test_id_colours_differ_for_neighbouring_ids_and_repeat_for_the_same_id():
    c = od.id_colors(np.arange(200))
    assert c.shape == (200, 4) and c.dtype == np.float32
    assert ((c[:, :3] >= 0) & (c[:, :3] <= 1)).all() and (c[:, 3] == 1).all()
    step = np.abs(np.diff(c[:, :3], axis=0)).max(axis=1)
    assert step.min() > 0.15  # consecutive ids are told apart
    assert np.array_equal(od.id_colors([7, 7, 3])[0], od.id_colors([7])[0])


def test_voxel_tops_one_strip_per_run_coloured_by_area():
    d = small_debug()
    layer = od.build_voxel_layer(d)
    # no two neighbours share height and area here: one rectangle (6 vertices) per top
    assert layer.tri_positions.shape == (4 * 6, 3)
    sq = layer.tri_positions.reshape(4, 6, 3)
    order = np.argsort(sq.mean(axis=1)[:, 0])
    sq = sq[order]
    np.testing.assert_allclose(sq.mean(axis=1)[:, 0], d.spans["x"], atol=1e-6)
    np.testing.assert_allclose(sq[:, :, 2], np.repeat(d.spans["z"][:, None] + od.VOXEL_LIFT,
                                                      6, 1), atol=1e-6)
    np.testing.assert_allclose(np.ptp(sq[:, :, 0], axis=1), od.VOXEL_FILL * 0.2, rtol=1e-5)
    col = layer.tri_colors.reshape(4, 6, 4)[order, 0]
    np.testing.assert_allclose(col[0, :3], od.UNWALKABLE_COLOR[:3])
    np.testing.assert_allclose(col[1, :3], STANCE_COLORS["stand"][:3])
    np.testing.assert_allclose(col[2, :3], STANCE_COLORS["crouch"][:3])


def test_a_row_of_equal_tops_is_one_strip_and_a_change_breaks_it():
    spans = np.zeros(7, VOXEL_TOP)
    spans["x"] = [0.1, 0.3, 0.5, 0.7, 0.9, 0.5, 0.7]
    spans["y"] = [0.1] * 5 + [0.3, 0.3]
    spans["area"] = [1, 1, 1, 0, 1, 1, 1]
    spans["z"] = [1.0] * 7
    d = BakeDebug(0.2, 0.1, spans)
    layer = od.build_voxel_layer(d)
    rects = layer.tri_positions.reshape(-1, 6, 3)
    # row y 0.1: stand 0.1..0.5, not walkable 0.7, stand 0.9; row y 0.3: stand 0.5..0.7
    spans_x = sorted((round(float(r[:, 0].min()), 3), round(float(r[:, 0].max()), 3),
                      round(float(r[:, 1].mean()), 3)) for r in rects)
    h = 0.5 * od.VOXEL_FILL * 0.2
    expect = sorted([(0.1 - h, 0.5 + h, 0.1), (0.7 - h, 0.7 + h, 0.1), (0.9 - h, 0.9 + h, 0.1),
                     (0.5 - h, 0.7 + h, 0.3)])
    np.testing.assert_allclose(spans_x, expect, atol=1e-6)


def test_regions_skip_unwalkable_tops_and_contours_close_their_loops():
    d = small_debug()
    regions = od.build_region_layer(d)
    assert regions.tri_positions.shape[0] == 3 * 6
    col = regions.tri_colors.reshape(3, 6, 4)[:, 0]
    x = regions.tri_positions.reshape(3, 6, 3).mean(axis=1)[:, 0]
    np.testing.assert_allclose(col[np.argsort(x)], od.id_colors([4, 5, 4]))
    contours = od.build_contour_layer(d, lift=0.05)
    (lines,) = contours.lines
    assert lines.count == 4 + 3
    seg = lines.positions.reshape(-1, 2, 3)
    # every loop closes: the last segment of the square ends at its first point
    np.testing.assert_allclose(seg[3, 1], [0, 0, 1.05], atol=1e-6)
    np.testing.assert_allclose(seg[6, 1], [2, 0, 2.05], atol=1e-6)
    dark = od.id_colors([5])[0, :3] * od.CONTOUR_DARKEN
    np.testing.assert_allclose(lines.colors[-1, :3], dark, atol=1e-6)


def test_missing_debug_data_gives_empty_layers_and_unknown_names_are_refused():
    for name in od.BAKE_DEBUG_LAYERS:
        assert od.build_debug_layer(name, None, None).empty
    assert od.build_debug_layer("debug_polygons", None, None).empty
    with pytest.raises(ValueError, match="unknown debug layer 'voxels'"):
        od.build_debug_layer("voxels", None, small_debug())


def test_refused_links_squares_lines_and_block_points():
    from blender_navjump.core.debug import (
        LINK_REJECT,
        REJECT_BLOCKED,
        REJECT_NO_LANDING,
        REJECT_TOO_FAR,
    )

    rej = np.zeros(3, LINK_REJECT)
    rej["x"], rej["y"], rej["z"] = [0, 1, 2], [0, 0, 0], [1, 1, 1]
    rej["tx"], rej["ty"], rej["tz"] = [3, 1, 5], [0, 0, 0], [1, 1, 0]
    rej["bx"], rej["by"], rej["bz"] = [np.nan, np.nan, 3.5], [np.nan, np.nan, 0], \
        [np.nan, np.nan, 1.5]
    rej["reason"] = [REJECT_TOO_FAR, REJECT_NO_LANDING, REJECT_BLOCKED]
    d = BakeDebug(0.2, 0.1, link_rejects=rej)
    layer = od.build_debug_layer("debug_link_rejects", None, d, lift=0.05)
    # a square per take-off point, one more where the blocked one is blocked
    squares = layer.tri_positions.reshape(-1, 6, 3)
    assert squares.shape[0] == 4
    np.testing.assert_allclose(squares.mean(axis=1)[-1], [3.5, 0, 1.55], atol=1e-6)
    np.testing.assert_allclose(np.ptp(squares[-1, :, 0]), 2 * od.REJECT_BLOCK_MARK, rtol=1e-6)
    cols = layer.tri_colors.reshape(-1, 6, 4)[:, 0]
    np.testing.assert_allclose(cols[:3], od.reject_colors(rej["reason"]))
    # lines to the landings, none for the sample that has no candidate
    (lines,) = layer.lines
    assert lines.count == 2
    np.testing.assert_allclose(lines.positions[:2], [[0, 0, 1.05], [3, 0, 1.05]], atol=1e-6)
    np.testing.assert_allclose(lines.colors[0], od.REJECT_COLORS["too_far"])
    assert od.build_debug_layer("debug_link_rejects", None, BakeDebug()).empty
