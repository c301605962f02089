"""Path queries on hand-built navmeshes: exact distances, an independent Dijkstra, links,
stances, flags, heights and bad input."""

from __future__ import annotations

import heapq
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from navmesh_builders import navmesh_from_polygons, with_links

from blender_navjump.core.navmesh import LINK_KINDS, NavMesh
from blender_navjump.core.query import (
    AgentFilter,
    NavQuery,
    find_path,
    find_paths,
)
from blender_navjump.core.query.astar import heap_pop, heap_push

STANCE_CHAR = {".": 0, "c": 1, "p": 2}
LINK_FLAGS = {"jump_start", "drop_start"}


def grid_navmesh(rows: list[str], z: float = 0.0) -> NavMesh:
    """One 1 m square polygon per cell; ``rows[j][i]`` is cell (i, j) (x right, y up).

    '.' stand, 'c' crouch, 'p' prone, anything else no polygon.
    """
    ids: dict[tuple[int, int], int] = {}
    verts, polys, stances = [], [], []

    def vid(x, y):
        if (x, y) not in ids:
            ids[(x, y)] = len(verts)
            verts.append((x, y, z))
        return ids[(x, y)]

    for j, row in enumerate(rows):
        for i, ch in enumerate(row):
            if ch in STANCE_CHAR:
                polys.append([vid(i, j), vid(i + 1, j), vid(i + 1, j + 1), vid(i, j + 1)])
                stances.append(STANCE_CHAR[ch])
    return navmesh_from_polygons(verts, polys, stances, nvp=6)


def cell_poly(nm: NavMesh, x: float, y: float) -> int:
    for p in range(nm.polygon_count):
        v = nm.polygon_vertices(p)
        if v[:, 0].min() <= x <= v[:, 0].max() and v[:, 1].min() <= y <= v[:, 1].max():
            return p
    raise AssertionError(f"no polygon at {x}, {y}")


def polys_containing(nm: NavMesh, x: float, y: float, eps: float = 1e-7) -> list[int]:
    out = []
    for p in range(nm.polygon_count):
        v = nm.polygon_vertices(p)
        e = np.roll(v, -1, axis=0) - v
        cross = e[:, 0] * (y - v[:, 1]) - e[:, 1] * (x - v[:, 0])
        if np.all(cross >= -eps * np.linalg.norm(e[:, :2], axis=1)):
            out.append(p)
    return out


def assert_on_mesh(nm: NavMesh, res, agent: AgentFilter):
    """Walking segments stay on usable polygons whose stance is the one flagged."""
    allowed = {("stand", "crouch", "prone").index(s) for s in agent.stances}
    pts = res.points
    flags = res.flag_names
    for i in range(len(pts) - 1):
        if flags[i] in LINK_FLAGS:
            continue
        for f in (0.1, 0.37, 0.5, 0.81):
            x, y, _ = pts[i] + f * (pts[i + 1] - pts[i])
            polys = polys_containing(nm, x, y)
            assert polys, f"segment {i} leaves the navmesh at ({x:.3f}, {y:.3f})"
            st_here = {int(nm.polygon_stance[p]) for p in polys}
            assert st_here & allowed, f"segment {i} crosses a forbidden stance at {x}, {y}"
            assert int(res.stances[i]) in st_here, (
                f"segment {i} is flagged {res.stance_names[i]} but crosses stances {st_here}")


# ---------------------------------------------------------------- reference Dijkstra
def straight_cost_on_grid(nm: NavMesh, start, goal, agent: AgentFilter):
    """Cost of the straight segment on a unit-grid mesh, or None if it leaves usable cells."""
    s, g = np.asarray(start, float), np.asarray(goal, float)
    d = g - s
    ts = {0.0, 1.0}
    for axis in (0, 1):
        if d[axis] != 0:
            lo, hi = sorted((s[axis], g[axis]))
            for k in range(math.ceil(lo), math.floor(hi) + 1):
                ts.add((k - s[axis]) / d[axis])
    ts = sorted(t for t in ts if 0.0 <= t <= 1.0)
    total = 0.0
    for t0, t1 in zip(ts[:-1], ts[1:], strict=True):
        if t1 - t0 < 1e-12:
            continue
        x, y, _ = s + 0.5 * (t0 + t1) * d
        polys = [p for p in polys_containing(nm, x, y)
                 if agent.stance_allowed()[nm.polygon_stance[p]]]
        if not polys:
            return None
        total += (t1 - t0) * np.linalg.norm(d) * agent.stance_cost[nm.polygon_stance[polys[0]]]
    return total


def reference_graph(nm: NavMesh, start, goal, agent: AgentFilter):
    """The documented graph, built from the (unit-grid) NavMesh alone.

    Nodes: portal midpoints, link segment midpoints, start, goal (when not None); edges:
    every pair of ports of a usable polygon, usable links, and start -> goal when the
    straight segment stays on usable polygons. Returns (positions, ports per polygon,
    adjacency, start node, goal node or None).
    """
    sp = cell_poly(nm, start[0], start[1])
    allowed = agent.stance_allowed()
    mult = agent.stance_cost
    ports: dict[int, list[int]] = {p: [] for p in range(nm.polygon_count)}
    pos: list[np.ndarray] = []
    seen_edges = set()
    for p in range(nm.polygon_count):
        row = nm.polygons[p]
        n = int((row >= 0).sum())
        for i in range(n):
            q = int(nm.neighbours[p, i])
            if q < 0:
                continue
            a, b = int(row[i]), int(row[(i + 1) % n])
            key = (min(p, q), max(p, q), min(a, b), max(a, b))
            if key in seen_edges:
                continue
            seen_edges.add(key)
            pos.append(0.5 * (nm.vertices[a] + nm.vertices[b]))
            ports[p].append(len(pos) - 1)
            ports[q].append(len(pos) - 1)
    link_edges = []
    for k in range(nm.link_count):
        s_node, e_node = len(pos), len(pos) + 1
        pos.append(nm.link_start[k].mean(axis=0))
        pos.append(nm.link_end[k].mean(axis=0))
        ports[int(nm.link_start_poly[k])].append(s_node)
        ports[int(nm.link_end_poly[k])].append(e_node)
        kind = LINK_KINDS[int(nm.link_kind[k])]
        if kind not in agent.links:
            continue
        if not (allowed[nm.polygon_stance[nm.link_start_poly[k]]]
                and allowed[nm.polygon_stance[nm.link_end_poly[k]]]):
            continue
        scale = agent.link_cost_scale[LINK_KINDS.index(kind)]
        c = max(nm.link_cost[k] * scale, float(np.linalg.norm(pos[e_node] - pos[s_node])))
        link_edges.append((s_node, e_node, c))
        if nm.link_bidirectional[k]:
            link_edges.append((e_node, s_node, c))
    start_node = len(pos)
    pos.append(np.asarray(start, float))
    ports[sp].append(start_node)
    goal_node = None
    if goal is not None:
        goal_node = len(pos)
        pos.append(np.asarray(goal, float))
        ports[cell_poly(nm, goal[0], goal[1])].append(goal_node)
    adj: dict[int, list[tuple[int, float]]] = {i: [] for i in range(len(pos))}
    for p, members in ports.items():
        if not allowed[nm.polygon_stance[p]]:
            continue
        m = mult[int(nm.polygon_stance[p])]
        for a in members:
            for b in members:
                if a != b:
                    adj[a].append((b, m * float(np.linalg.norm(pos[a] - pos[b]))))
    for a, b, c in link_edges:
        adj[a].append((b, float(c)))
    if goal is not None:
        direct = straight_cost_on_grid(nm, start, goal, agent)
        if direct is not None:
            adj[start_node].append((goal_node, direct))
    return pos, ports, adj, start_node, goal_node


def dijkstra(adj, source) -> dict[int, float]:
    """Cheapest cost from source to every node it reaches."""
    dist = {source: 0.0}
    heap = [(0.0, source)]
    while heap:
        d, n = heapq.heappop(heap)
        if d > dist.get(n, math.inf):
            continue
        for m, c in adj[n]:
            if d + c < dist.get(m, math.inf):
                dist[m] = d + c
                heapq.heappush(heap, (d + c, m))
    return dist


def reference_cost(nm: NavMesh, start, goal, agent: AgentFilter):
    """Dijkstra over :func:`reference_graph`: the cheapest cost, or None if unreachable."""
    _pos, _ports, adj, start_node, goal_node = reference_graph(nm, start, goal, agent)
    return dijkstra(adj, start_node).get(goal_node)


def reference_partial(nm: NavMesh, start, goal, agent: AgentFilter):
    """The documented partial path on a unit-grid mesh, by brute force: (distance from the
    goal to the reachable point nearest it, cheapest cost to such a point), over every
    usable polygon a node reached from the start lies in."""
    pos, ports, adj, start_node, _ = reference_graph(nm, start, None, agent)
    dist = dijkstra(adj, start_node)
    allowed = agent.stance_allowed()
    g = np.asarray(goal, float)
    ends = []
    for p, members in ports.items():
        reached = [m for m in members if m in dist]
        if not reached or not allowed[nm.polygon_stance[p]]:
            continue
        v = nm.polygon_vertices(p)
        c = np.array([min(max(g[0], v[:, 0].min()), v[:, 0].max()),
                      min(max(g[1], v[:, 1].min()), v[:, 1].max()), v[0, 2]])
        mult = agent.stance_cost[int(nm.polygon_stance[p])]
        cost = min(dist[m] + mult * float(np.linalg.norm(pos[m] - c)) for m in reached)
        ends.append((float(np.linalg.norm(c - g)), cost))
    near = min(d for d, _ in ends)
    return near, min(c for d, c in ends if d <= near + 1e-9)


def random_grid(rng: np.random.Generator, w: int, h: int) -> list[str]:
    chars = rng.choice([".", ".", ".", "c", "p", "#"], size=(h, w), p=[.3, .2, .1, .15, .1, .15])
    return ["".join(r) for r in chars]


def random_links(nm: NavMesh, rng: np.random.Generator, n: int) -> NavMesh:
    """Links between random cell pairs: short segments inside each cell."""
    centres = np.array([nm.polygon_vertices(p).mean(axis=0) for p in range(nm.polygon_count)])
    a = rng.integers(0, nm.polygon_count, n)
    b = rng.integers(0, nm.polygon_count, n)
    off = rng.uniform(-0.3, 0.3, (n, 2, 3))
    off[:, :, 2] = 0
    starts = centres[a][:, None, :] + off
    ends = centres[b][:, None, :] + off[:, ::-1]
    return with_links(nm, rng.integers(0, 3, n), starts, ends,
                      bidirectional=rng.random(n) < 0.5, start_polys=a, end_polys=b,
                      costs=rng.uniform(0.0, 3.0, n))


# -------------------------------------------------------------------------- tests
@settings(deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), max_size=60))
def test_heap_pops_in_key_order(keys):
    cap = len(keys) + 1
    hk, hv = np.zeros(cap), np.zeros(cap, np.int64)
    size = 0
    for i, k in enumerate(keys):
        size = heap_push(hk, hv, size, k, i)
    popped = []
    while size:
        k, v, size = heap_pop(hk, hv, size)
        assert keys[v] == k
        popped.append(k)
    assert popped == sorted(keys)


def test_straight_line_gives_exact_distance():
    nm = grid_navmesh(["." * 10] * 3)
    s, g = (0.3, 0.4, 0.0), (9.6, 2.7, 0.0)
    res = find_path(nm, s, g)
    assert res.found and res.status == "found"
    assert len(res.points) == 2
    want = math.dist(s, g)
    assert res.length == pytest.approx(want, abs=1e-12)
    assert res.cost == pytest.approx(want, abs=1e-12)
    assert res.flag_names == ["walk", "walk"]
    assert res.corridor[0] == cell_poly(nm, 0.3, 0.4)
    assert res.corridor[-1] == cell_poly(nm, 9.6, 2.7)


def test_funnel_turns_at_the_inner_corner():
    # An L: along y in [0, 1] to x = 5, then up the column x in [4, 5].
    nm = grid_navmesh([".....", "    .", "    .", "    .", "    ."])
    s, g = (0.5, 0.5, 0.0), (4.5, 4.5, 0.0)
    res = find_path(nm, s, g)
    assert res.found
    corner = (4.0, 1.0, 0.0)
    assert len(res.points) == 3
    assert res.points[1] == pytest.approx(corner)
    assert res.length == pytest.approx(math.dist(s, corner) + math.dist(corner, g), abs=1e-9)
    assert_on_mesh(nm, res, AgentFilter())


def random_queries(rng, nm, n):
    """The grid navmesh with random links (70%), a random agent (stances, links, costs) and
    n random start/goal pairs on polygons it may stand on (none when there are none)."""
    if rng.random() < 0.7:
        nm = random_links(nm, rng, int(rng.integers(1, 5)))
    stances = [s for s in ("stand", "crouch", "prone") if rng.random() < 0.75] or ["stand"]
    links = [k for k in LINK_KINDS if rng.random() < 0.7]
    agent = AgentFilter(stances=stances, links=links,
                        stance_cost=tuple(rng.uniform(0.5, 4.0, 3)),
                        link_cost_scale=tuple(rng.uniform(0.0, 2.0, 3)))
    usable = [p for p in range(nm.polygon_count)
              if agent.stance_allowed()[nm.polygon_stance[p]]]
    pairs = []
    for _ in range(n if usable else 0):
        a, b = rng.choice(usable, 2)
        s = nm.polygon_vertices(a).mean(axis=0) + np.r_[rng.uniform(-0.45, 0.45, 2), 0]
        g = nm.polygon_vertices(b).mean(axis=0) + np.r_[rng.uniform(-0.45, 0.45, 2), 0]
        pairs.append((s, g))
    return nm, agent, pairs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_astar_cost_equals_reference_dijkstra(seed):
    rng = np.random.default_rng(seed)
    rows = random_grid(rng, int(rng.integers(3, 7)), int(rng.integers(2, 6)))
    if not any(ch in STANCE_CHAR for row in rows for ch in row):
        rows[0] = "." + rows[0][1:]
    nm = grid_navmesh(rows)
    nm, agent, pairs = random_queries(rng, nm, 4)
    q = NavQuery(nm)
    for s, g in pairs:
        res = q.find_path(s, g, agent)
        want = reference_cost(nm, s, g, agent)
        assert res.found == (want is not None)
        if want is not None:
            assert res.search_cost == pytest.approx(want, rel=1e-9, abs=1e-9)
            if len(set(nm.polygon_stance[res.corridor])) == 1 and not len(res.links_used()):
                # one multiplier: the taut path is never dearer than the port path
                assert res.cost <= res.search_cost + 1e-9
        assert_on_mesh(nm, res, agent)
        used = res.links_used()
        assert np.sum(np.isin(res.flag_names, list(LINK_FLAGS))) == len(used)
        for k in used:
            assert LINK_KINDS[nm.link_kind[k]] in agent.links


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_partial_path_equals_brute_force(seed):
    """An unreachable goal (islands, forbidden stances, one-way links): the path ends at the
    reachable point nearest the goal, reached at the cheapest cost (the search knows the
    goal is unreachable from the reachability components and goes straight there)."""
    rng = np.random.default_rng(seed)
    rows = random_grid(rng, int(rng.integers(3, 8)), int(rng.integers(2, 6)))
    nm = grid_navmesh(rows) if any(ch in STANCE_CHAR for r in rows for ch in r) else None
    if nm is None:
        return
    nm, agent, pairs = random_queries(rng, nm, 6)
    q = NavQuery(nm)
    for s, g in pairs:
        res = q.find_path(s, g, agent)
        want = reference_cost(nm, s, g, agent)
        assert res.found == (want is not None)
        if want is not None:
            continue
        near, cost = reference_partial(nm, s, g, agent)
        assert res.status == "partial"
        assert np.linalg.norm(res.points[-1] - g) == pytest.approx(near, abs=1e-9)
        assert res.search_cost == pytest.approx(cost, rel=1e-9, abs=1e-9)
        assert_on_mesh(nm, res, agent)


def gap_mesh(bridge: bool) -> NavMesh:
    rows = ["....##...."] * 4 + (["." * 10] if bridge else [])
    nm = grid_navmesh(rows)
    # jump across the 2 m gap between x = 4 and x = 6, for y in [1, 2]
    return with_links(nm, ["jump_across"], [[(4.0, 1.0, 0.0), (4.0, 2.0, 0.0)]],
                      [[(6.0, 1.0, 0.0), (6.0, 2.0, 0.0)]], bidirectional=True,
                      start_polys=[cell_poly(nm, 3.5, 1.5)], end_polys=[cell_poly(nm, 6.5, 1.5)],
                      costs=[3.0])


def test_gap_only_crossable_by_a_jump():
    nm = gap_mesh(bridge=False)
    s, g = (1.0, 1.2, 0.0), (8.5, 1.9, 0.0)
    res = find_path(nm, s, g)
    assert res.found
    assert res.flag_names.count("jump_start") == 1
    assert res.flag_names.count("jump_end") == 1
    i = res.flag_names.index("jump_start")
    assert res.flag_names[i + 1] == "jump_end"
    take_off, landing = res.points[i], res.points[i + 1]
    assert take_off[0] == pytest.approx(4.0) and landing[0] == pytest.approx(6.0)
    # the jump keeps its place along the segment: landing matches the take-off point
    assert landing[1] == pytest.approx(take_off[1], abs=1e-9)
    # best take-off: the straight line with the 2 m gap removed, clamped to the link
    y_best = 1.2 + 0.7 * 3.0 / 5.5
    assert take_off[1] == pytest.approx(y_best, abs=1e-4)
    assert res.length == pytest.approx(math.hypot(5.5, 0.7) + 2.0, abs=1e-6)
    # the link costs 3.0 instead of the 2 m it covers
    assert res.cost == pytest.approx(res.length + 1.0, abs=1e-6)
    assert_on_mesh(nm, res, AgentFilter())
    # back the other way over the same bidirectional link
    back = find_path(nm, g, s)
    assert back.found and back.flag_names.count("jump_start") == 1

    no_links = find_path(nm, s, g, AgentFilter(links=()))
    assert not no_links.found and no_links.status == "partial"
    assert "jump_start" not in no_links.flag_names
    # the partial path ends at the reachable point nearest the goal: the gap's edge
    assert no_links.points[-1] == pytest.approx((4.0, 1.9, 0.0), abs=1e-9)
    assert_on_mesh(nm, no_links, AgentFilter(links=()))


def test_without_links_the_path_goes_around():
    nm = gap_mesh(bridge=True)
    s, g = (1.5, 1.5, 0.0), (8.5, 1.5, 0.0)
    jump = find_path(nm, s, g)
    assert jump.found and jump.flag_names.count("jump_start") == 1
    around = find_path(nm, s, g, AgentFilter(links=()))
    assert around.found
    assert set(around.flag_names) == {"walk"}
    assert around.length == pytest.approx(2 * math.hypot(2.5, 2.5) + 2.0, abs=1e-9)
    assert jump.cost < around.cost
    assert_on_mesh(nm, around, AgentFilter(links=()))


def test_one_way_drop_is_not_climbed_back():
    nm = grid_navmesh(["....##...."] * 3)
    nm = with_links(nm, ["drop"], [[(4.0, 1.0, 0.0), (4.0, 2.0, 0.0)]],
                    [[(6.0, 1.0, 0.0), (6.0, 2.0, 0.0)]], bidirectional=False, costs=[0.5],
                    start_polys=[cell_poly(nm, 3.5, 1.5)], end_polys=[cell_poly(nm, 6.5, 1.5)])
    down = find_path(nm, (1.5, 1.5, 0.0), (8.5, 1.5, 0.0))
    assert down.found
    assert down.flag_names.count("drop_start") == 1 and down.flag_names.count("drop_end") == 1
    assert list(down.links_used()) == [0]
    up = find_path(nm, (8.5, 1.5, 0.0), (1.5, 1.5, 0.0))
    assert not up.found


def crawl_mesh() -> NavMesh:
    return grid_navmesh([
        "....ppp....",  # y in [0, 1]: a crawl space between two standing areas
        ".#########.",
        ".#########.",
        "...........",  # the long way round
    ])


def test_stance_filter_routes_a_standing_agent_around_the_crawl_space():
    nm = crawl_mesh()
    s, g = (2.0, 0.5, 0.0), (9.0, 0.5, 0.0)
    crawler = find_path(nm, s, g, AgentFilter())
    assert crawler.found
    assert any(nm.polygon_stance[p] == 2 for p in crawler.corridor)
    stander = AgentFilter(stances=("stand",))
    walker = find_path(nm, s, g, stander)
    assert walker.found
    assert all(nm.polygon_stance[p] == 0 for p in walker.corridor)
    assert set(walker.stance_names) == {"stand"}
    assert walker.length > crawler.length
    assert_on_mesh(nm, walker, stander)
    assert_on_mesh(nm, crawler, AgentFilter())
    # an agent that may crouch but not crawl is no better off than the standing one
    croucher = find_path(nm, s, g, AgentFilter(stances="stand,crouch"))
    assert croucher.length == pytest.approx(walker.length)


def test_stance_changes_are_flagged_where_they_happen():
    nm = crawl_mesh()
    s, g = (2.0, 0.5, 0.0), (9.0, 0.5, 0.0)
    res = find_path(nm, s, g)
    assert res.flag_names == ["walk", "stance_change", "stance_change", "walk"]
    assert res.stance_names == ["stand", "prone", "stand", "stand"]
    assert res.points[1] == pytest.approx((4.0, 0.5, 0.0))
    assert res.points[2] == pytest.approx((7.0, 0.5, 0.0))
    # crawling 3 m at the prone multiplier, walking the rest
    assert res.cost == pytest.approx(2.0 + 3.0 * 3.0 + 2.0, abs=1e-9)
    cheap = find_path(nm, s, g, AgentFilter(stance_cost=(1.0, 1.5, 1.0)))
    assert cheap.cost == pytest.approx(7.0, abs=1e-9)
    # a very slow crawl makes the long way round cheaper
    slow = find_path(nm, s, g, AgentFilter(stance_cost=(1.0, 1.5, 50.0)))
    assert "stance_change" not in slow.flag_names


def test_stance_change_on_a_funnel_corner():
    # The path turns at (3, 1), which is also where the crouch area begins.
    nm = grid_navmesh(["...##", "...cc"])
    res = find_path(nm, (0.5, 0.5, 0.0), (4.5, 1.2, 0.0))
    assert res.found
    assert_on_mesh(nm, res, AgentFilter())
    assert res.stance_names[-1] == "crouch"
    changes = [i for i, f in enumerate(res.flag_names) if f == "stance_change"]
    assert len(changes) == 1
    assert res.stance_names[changes[0]] == "crouch"
    assert res.points[changes[0]] == pytest.approx((3.0, 1.0, 0.0))
    assert len(res.points) == 3


def test_heights_follow_the_detail_mesh():
    # One square polygon whose detail mesh raises its centre to z = 1.
    verts = np.array([(0, 0, 0), (4, 0, 0), (4, 4, 0), (0, 4, 0)], float)
    nm = navmesh_from_polygons(verts, [[0, 1, 2, 3]])
    nm.detail_vertices = np.vstack([verts, [(2.0, 2.0, 1.0)]])
    nm.detail_triangles = np.array([(0, 1, 4, 0), (1, 2, 4, 0), (2, 3, 4, 0), (3, 0, 4, 0)],
                                   np.int32)
    nm.detail_meshes = np.array([(0, 5, 0, 4)], np.int32)
    res = find_path(nm, (0.5, 2.0, 3.0), (3.5, 2.0, -1.0))
    assert res.points[0] == pytest.approx((0.5, 2.0, 0.25))
    assert res.points[-1] == pytest.approx((3.5, 2.0, 0.25))


def test_nearest_polygon_picks_the_level_near_the_point():
    floor = grid_navmesh(["...."] * 2)
    v = np.vstack([floor.vertices, floor.vertices + (0, 0, 3.0)])
    polys = [list(r[r >= 0]) for r in floor.polygons]
    polys += [[i + len(floor.vertices) for i in p] for p in polys]
    nm = navmesh_from_polygons(v, polys)
    q = NavQuery(nm)
    up, pt, d = q.nearest_polygon((1.5, 0.5, 2.7))
    assert nm.vertices[nm.polygons[up][0], 2] == 3.0
    assert pt == pytest.approx((1.5, 0.5, 3.0)) and d == pytest.approx(0.3)
    down, pt, _ = q.nearest_polygon((1.5, 0.5, 0.4))
    assert nm.vertices[nm.polygons[down][0], 2] == 0.0
    res = q.find_path((0.5, 0.5, 3.2), (3.5, 1.5, 3.1))
    assert all(nm.vertices[nm.polygons[p][0], 2] == 3.0 for p in res.corridor)
    assert np.allclose(res.points[:, 2], 3.0)


def test_batch_matches_single_queries():
    nm = crawl_mesh()
    rng = np.random.default_rng(7)
    cells = np.array([nm.polygon_vertices(p).mean(axis=0) for p in range(nm.polygon_count)])
    starts = cells[rng.integers(0, len(cells), 50)] + np.r_[0.3, -0.2, 0.0]
    goals = cells[rng.integers(0, len(cells), 50)] + np.r_[-0.1, 0.4, 0.0]
    agent = AgentFilter(stances=("stand", "prone"))
    batch = find_paths(nm, starts, goals, agent)
    assert len(batch) == 50
    for i in range(50):
        one = find_path(nm, starts[i], goals[i], agent)
        many = batch.path(i)
        assert one.status == many.status
        np.testing.assert_allclose(one.points, many.points)
        assert one.flag_names == many.flag_names and one.stance_names == many.stance_names
        assert one.cost == pytest.approx(many.cost)
        np.testing.assert_array_equal(one.corridor, many.corridor)


def test_partial_path_ends_nearest_the_unreachable_goal():
    nm = grid_navmesh(["...#..", "...#.."])
    res = find_path(nm, (0.5, 0.5, 0.0), (5.5, 1.2, 0.0))
    assert not res.found and res.status == "partial"
    assert res.points[-1] == pytest.approx((3.0, 1.2, 0.0))
    assert res.length == pytest.approx(math.dist((0.5, 0.5), (3.0, 1.2)))


# ---------------------------------------------------------------------- bad input
def test_nearest_polygon_off_the_grid_in_every_direction():
    """Points beyond the spatial grid on both axes (the search box misses every cell):
    no polygon, and statuses instead of answers; a point just off a corner still finds the
    corner polygon."""
    nm = grid_navmesh(["...."] * 3)
    q = NavQuery(nm)
    far = [(x, y, 0.0) for x in (-50.0, 2.0, 50.0) for y in (-50.0, 1.5, 50.0)
           if (x, y) != (2.0, 1.5)]
    for p in far:
        poly, _, dist = q.nearest_polygon(p)
        assert poly == -1 and dist == np.inf, p
    batch = find_paths(nm, far, [(0.5, 0.5, 0.0)] * len(far), on_error="status")
    assert list(batch.status) == [2] * len(far)  # start_off_mesh
    poly, pt, dist = q.nearest_polygon((4.5, 3.5, 0.0))
    assert poly == cell_poly(nm, 3.5, 2.5)
    assert pt == pytest.approx((4.0, 3.0, 0.0)) and dist == pytest.approx(math.hypot(0.5, 0.5))


def test_bad_input_raises_clear_errors():
    nm = grid_navmesh(["...."] * 2)
    q = NavQuery(nm)
    with pytest.raises(ValueError, match="NaN"):
        q.find_path((np.nan, 0.5, 0.0), (1.5, 0.5, 0.0))
    with pytest.raises(ValueError, match=r"start .* is off the navmesh.*7\.500 m away"):
        q.find_path((-7.5, 1.0, 0.0), (1.5, 0.5, 0.0))
    with pytest.raises(ValueError, match=r"goal .* off the navmesh.*10\.000 m away"):
        q.find_path((0.5, 0.5, 0.0), (1.5, 0.5, 10.0))
    with pytest.raises(ValueError, match="unknown stance 'swim'"):
        AgentFilter(stances=("stand", "swim"))
    with pytest.raises(ValueError, match="unknown link kind"):
        AgentFilter(links=("teleport",))
    with pytest.raises(ValueError, match="at least one stance"):
        AgentFilter(stances=())
    with pytest.raises(ValueError, match="stance_cost"):
        AgentFilter(stance_cost=(1.0, -1.0, 2.0))
    with pytest.raises(ValueError, match="half-extents"):
        q.find_path((0.5, 0.5, 0.0), (1.5, 0.5, 0.0), extents=(1.0, 0.0, 1.0))
    # only stand polygons, and a crouch-only agent: nothing it may use
    with pytest.raises(ValueError, match="no polygon an agent with stances"):
        q.find_path((0.5, 0.5, 0.0), (1.5, 0.5, 0.0), AgentFilter(stances=("crouch",)))


def test_batch_status_mode_reports_each_bad_query():
    nm = grid_navmesh(["...."] * 2)
    starts = [(0.5, 0.5, 0), (np.nan, 0, 0), (40.0, 0.5, 0), (0.5, 0.5, 0)]
    goals = [(3.5, 1.5, 0), (1.5, 0.5, 0), (1.5, 0.5, 0), (1.5, 0.5, -9.0)]
    b = find_paths(nm, starts, goals, on_error="status")
    names = [["found", "partial", "start_off_mesh", "goal_off_mesh", "bad_input"][s]
             for s in b.status]
    assert names == ["found", "bad_input", "start_off_mesh", "goal_off_mesh"]
    assert list(b.found) == [True, False, False, False]
    assert np.diff(b.point_offsets).tolist()[1:] == [0, 0, 0]
    with pytest.raises(ValueError, match="query 1"):
        find_paths(nm, starts, goals)


def test_broken_navmesh_arrays_are_refused():
    nm = grid_navmesh(["...."])
    nm.neighbours = nm.neighbours[:, :3]
    with pytest.raises(ValueError, match="neighbours"):
        NavQuery(nm)
    nm = grid_navmesh(["...."])
    nm.polygon_stance = np.full(nm.polygon_count, 7, np.int8)
    with pytest.raises(ValueError, match="polygon_stance"):
        NavQuery(nm)


def test_corrupt_geometry_is_refused():
    nm = grid_navmesh(["...."])
    nm.vertices = nm.vertices.copy()
    nm.vertices[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"'vertices'\[2\] is .*NaN or infinite"):
        NavQuery(nm)
    nm = grid_navmesh(["...."])
    nm.detail_triangles = nm.detail_triangles.copy()
    nm.detail_triangles[0, 1] = 9
    with pytest.raises(ValueError, match="detail_triangles"):
        NavQuery(nm)
    nm = grid_navmesh(["...."])
    nm.link_start = np.zeros((2, 2, 3))
    with pytest.raises(ValueError, match="link_start"):
        NavQuery(nm)


def test_cached_query_survives_copies_and_array_replacement():
    import copy
    import pickle

    nm = crawl_mesh()
    first = find_path(nm, (2.0, 0.5, 0.0), (9.0, 0.5, 0.0))
    for other in (pickle.loads(pickle.dumps(nm)), copy.deepcopy(nm)):
        again = find_path(other, (2.0, 0.5, 0.0), (9.0, 0.5, 0.0))
        np.testing.assert_array_equal(again.points, first.points)
    # replacing an array (here: every polygon becomes prone) rebuilds the query
    nm.polygon_stance = np.full(nm.polygon_count, 2, np.int8)
    with pytest.raises(ValueError, match="no polygon an agent with stances"):
        find_path(nm, (2.0, 0.5, 0.0), (9.0, 0.5, 0.0), AgentFilter(stances=("stand",)))
