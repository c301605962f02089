"""Path queries on Recast's sample meshes baked with Recast's default settings."""

from __future__ import annotations

import numpy as np
import pytest

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core.objio import read_obj
from blender_navjump.core.query import AgentFilter, NavQuery, random_navmesh_points


def recast_queries(path):
    """The ``pf`` lines of nav_mesh_test.txt: (starts, goals) converted from Y up to Z up."""
    rows = []
    for line in path.read_text().splitlines():
        f = line.split()
        if f and f[0] == "pf":
            rows.append([float(v) for v in f[1:7]])
    a = np.array(rows)

    def z_up(p):
        return np.stack([p[:, 0], -p[:, 2], p[:, 1]], axis=1)

    return z_up(a[:, :3]), z_up(a[:, 3:6])


@pytest.fixture(scope="module")
def baked(recast_data):
    out = {}
    for name in ("nav_test.obj", "dungeon.obj"):
        v, t = read_obj(recast_data / name, up="y")
        out[name] = bake(v, t, BakeSettings())
    return out


def components(nm) -> np.ndarray:
    """Connected component of each polygon over shared edges (no links)."""
    parent = np.arange(nm.polygon_count)

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for p in range(nm.polygon_count):
        for q in nm.neighbours[p]:
            if q >= 0:
                parent[find(p)] = find(q)
    return np.array([find(p) for p in range(nm.polygon_count)])


def in_polygon_xy(nm, p, x, y, eps=1e-6) -> bool:
    v = nm.polygon_vertices(p)
    e = np.roll(v, -1, axis=0) - v
    cross = e[:, 0] * (y - v[:, 1]) - e[:, 1] * (x - v[:, 0])
    return bool(np.all(cross >= -eps * np.linalg.norm(e[:, :2], axis=1)))


def test_nav_mesh_test_queries_all_reach_their_goal(recast_data, baked):
    nm = baked["nav_test.obj"]
    starts, goals = recast_queries(recast_data / "nav_mesh_test.txt")
    assert len(starts) == 21
    batch = NavQuery(nm).find_paths(starts, goals)
    assert batch.found.all(), f"not found: {np.nonzero(~batch.found)[0]}"
    for q in range(len(batch)):
        res = batch.path(q)
        # ends are the query points placed on the navmesh (Recast's points lie on it)
        assert np.linalg.norm(res.points[0, :2] - starts[q, :2]) < 0.05
        assert np.linalg.norm(res.points[-1, :2] - goals[q, :2]) < 0.05
        assert res.length >= np.linalg.norm(goals[q] - starts[q]) - 0.5
        assert 1 <= len(res.corridor) <= nm.polygon_count


@pytest.mark.parametrize("name", ["nav_test.obj", "dungeon.obj"])
def test_random_paths_stay_in_their_corridor(baked, name):
    nm = baked[name]
    q = NavQuery(nm)
    rng = np.random.default_rng(11)
    starts = random_navmesh_points(nm, 150, rng)
    goals = random_navmesh_points(nm, 150, rng)
    batch = q.find_paths(starts, goals)
    comp = components(nm)
    same = comp[batch.start_polygon] == comp[batch.goal_polygon]
    np.testing.assert_array_equal(batch.found, same)
    for i in range(len(batch)):
        res = batch.path(i)
        corridor = set(res.corridor.tolist())
        for k in range(len(res.points) - 1):
            for f in (0.25, 0.5, 0.75):
                x, y, _ = res.points[k] + f * (res.points[k + 1] - res.points[k])
                assert any(in_polygon_xy(nm, p, x, y) for p in corridor), (
                    f"query {i}: segment {k} leaves its corridor at ({x:.3f}, {y:.3f})")
        # the sampled points lie on the surface: the path starts (and, if found, ends) there
        assert res.points[0] == pytest.approx(starts[i], abs=1e-6)
        if res.found:
            assert res.points[-1] == pytest.approx(goals[i], abs=1e-6)
            assert res.cost == pytest.approx(res.length)  # every polygon is "stand"


def test_batch_and_single_calls_agree(baked):
    nm = baked["dungeon.obj"]
    q = NavQuery(nm)
    rng = np.random.default_rng(5)
    starts = random_navmesh_points(nm, 30, rng)
    goals = random_navmesh_points(nm, 30, rng)
    agent = AgentFilter()
    batch = q.find_paths(starts, goals, agent)
    for i in range(30):
        one = q.find_path(starts[i], goals[i], agent)
        np.testing.assert_allclose(one.points, batch.path(i).points)
        assert one.status == batch.path(i).status
