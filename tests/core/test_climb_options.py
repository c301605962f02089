"""Per-element climbing options (core/climb_options.py, core/climb.py; docs/climbing.md,
"Per-element abilities, moves and links"): an element's abilities, moves and links shape
the implicit edges, along edges and navmesh links at both of its ends."""


import numpy as np
import pytest
from climb_items import random_segment
from hypothesis import given, settings
from hypothesis import strategies as st
from scenes import Scene

from blender_navjump.core import bake
from blender_navjump.core import climb as C
from blender_navjump.core.climb_options import ALL_MOVES, ElementOptions
from blender_navjump.core.kinds import (
    ABILITY_BACK_JUMP,
    ABILITY_CLIMB,
    ABILITY_LADDER,
    ABILITY_MOUNT,
    ABILITY_PIPE,
    ABILITY_SHIMMY,
    CLIMB_EDGE_ALONG,
    CLIMB_EDGE_BACK_JUMP,
    CLIMB_EDGE_DROP,
    CLIMB_EDGE_JUMP,
    CLIMB_LADDER,
    CLIMB_LEDGE,
    CLIMB_LINK_HANG,
    CLIMB_LINK_KINDS,
    CLIMB_LINK_MOUNT,
    CLIMB_PIPE,
)
from blender_navjump.core.settings import BakeSettings

HOLD = {CLIMB_LEDGE: ABILITY_CLIMB, CLIMB_LADDER: ABILITY_LADDER, CLIMB_PIPE: ABILITY_PIPE}


def item(name, kind, a, b, options=None):
    pts = np.array([a, b], np.float64)
    return (name, kind, pts) if options is None else (name, kind, pts, options)


def build(*items, params=None):
    el, warnings = C.make_elements(items)
    assert warnings == []
    return el, C.build_climb_graph(el, params or C.ClimbParams(max_link_distance=3.0,
                                                               max_drop_height=4.0))


def owners(g):
    """node -> set of elements owning it."""
    out: dict[int, set[int]] = {}
    for e, nodes in enumerate(g.element_nodes):
        for n in nodes.tolist():
            out.setdefault(n, set()).add(e)
    return out


def mask(*kinds):
    return sum(1 << k for k in kinds)


def test_back_jump_forbidden_on_one_ledge_removes_its_back_jumps_only():
    wall = item("wall-ledge", CLIMB_LEDGE, (0, 0, 3), (2, 0, 3))
    back = item("back-ledge", CLIMB_LEDGE, (0, 2.5, 3), (2, 2.5, 3))
    side = item("side-ledge", CLIMB_LEDGE, (0, -2.5, 3), (2, -2.5, 3))
    _, free = build(wall, back, side)
    assert (free.edge_kind == CLIMB_EDGE_BACK_JUMP).sum() >= 2
    no_back = ElementOptions(moves=ALL_MOVES & ~mask(CLIMB_EDGE_BACK_JUMP))
    _, g = build(wall, (*back, no_back), side)
    own = owners(g)
    bj = g.edge_nodes[g.edge_kind == CLIMB_EDGE_BACK_JUMP]
    assert bj.shape[0] >= 1  # the wall <-> side ledge back jumps stay
    for a, b in bj.tolist():
        assert 1 not in own[a] | own[b]
    # nothing else changed: the same edges but the back-ledge's back jumps
    keep = ~((free.edge_kind == CLIMB_EDGE_BACK_JUMP)
             & np.array([bool(1 in owners(free)[a] | owners(free)[b])
                         for a, b in free.edge_nodes.tolist()]))
    np.testing.assert_array_equal(g.edge_nodes, free.edge_nodes[keep])
    np.testing.assert_array_equal(g.edge_abilities, free.edge_abilities[keep])


def test_a_ledge_that_is_not_shimmyable_has_no_along_edges_but_keeps_its_jumps():
    still = ElementOptions(moves=ALL_MOVES & ~mask(CLIMB_EDGE_ALONG))
    el, g = build(item("a-ledge", CLIMB_LEDGE, (0, 0, 3), (3, 0, 3), still),
                  item("b-ledge", CLIMB_LEDGE, (4, 0, 3), (7, 0, 3)))
    assert g.element_nodes[0].shape[0] == 4  # its nodes are still there (hand holds)
    along = g.edge_element[g.edge_kind == CLIMB_EDGE_ALONG]
    assert 0 not in along.tolist() and (along == 1).sum() == 3
    assert (g.edge_kind == CLIMB_EDGE_JUMP).sum() >= 1  # end to end jump to b
    assert el.moves.tolist() == [ALL_MOVES & ~1, ALL_MOVES]


def test_forbidden_jumps_and_drops_at_either_end_remove_the_link():
    high = ((0, 0, 5), (2, 0, 5))
    low = ((0, 0.5, 2), (2, 0.5, 2))
    for where in (0, 1):
        for kind in (CLIMB_EDGE_DROP, CLIMB_EDGE_JUMP):
            opts = [None, None]
            opts[where] = ElementOptions(moves=ALL_MOVES & ~mask(kind))
            _, g = build(item("high-ledge", CLIMB_LEDGE, *high, opts[0]),
                         item("low-ledge", CLIMB_LEDGE, *low, opts[1]),
                         params=C.ClimbParams(max_link_distance=3.0, max_link_angle=45.0,
                                              max_drop_height=4.0))
            assert kind not in g.edge_kind.tolist(), (where, kind)
    _, g = build(item("high-ledge", CLIMB_LEDGE, *high), item("low-ledge", CLIMB_LEDGE, *low),
                 params=C.ClimbParams(max_link_distance=3.0, max_link_angle=45.0,
                                      max_drop_height=4.0))
    assert CLIMB_EDGE_DROP in g.edge_kind.tolist()


def test_implicit_edges_need_the_holding_abilities_of_both_ends():
    """A jump between a ledge and a ladder needs climbing and the ladder's own ability (to
    hold on to it); an element with custom abilities passes them on to every implicit edge
    at it, but for shimmying, which is its along move only."""
    _, g = build(item("a-ledge", CLIMB_LEDGE, (0, 0, 3), (2, 0, 3)),
                 item("b-ladder", CLIMB_LADDER, (3.5, 0, 0.5), (3.5, 0, 4)))
    jumps = g.edge_kind != CLIMB_EDGE_ALONG
    assert jumps.any()
    assert np.all(g.edge_abilities[jumps] == ABILITY_CLIMB | ABILITY_LADDER)
    custom = ElementOptions(abilities=ABILITY_CLIMB | ABILITY_SHIMMY | ABILITY_MOUNT)
    el, g = build(item("a-ledge", CLIMB_LEDGE, (0, 0, 3), (2, 0, 3), custom),
                  item("b-ledge", CLIMB_LEDGE, (3, 0, 3), (5, 0, 3)))
    assert el.abilities.tolist() == [custom.abilities, ABILITY_CLIMB | ABILITY_SHIMMY]
    jumps = g.edge_kind != CLIMB_EDGE_ALONG
    assert jumps.any() and np.all(g.edge_abilities[jumps] == ABILITY_CLIMB | ABILITY_MOUNT)
    along = g.edge_kind == CLIMB_EDGE_ALONG
    np.testing.assert_array_equal(g.edge_abilities[along],
                                  el.abilities[g.edge_element[along]])


def random_items(rng, n, extent=4.0):
    out = []
    for i in range(n):
        kind, ends = random_segment(rng, extent)
        abil = None if rng.random() < 0.5 else int(rng.integers(0, 64))
        opts = ElementOptions(abil, int(rng.integers(0, ALL_MOVES + 1)))
        out.append((f"e{i}", kind, ends, opts))
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 20))
def test_options_only_remove_edges_and_every_edge_matches_both_ends(seed, n):
    """Property: with random per-element abilities and moves, (1) the nodes are those of
    the graph without options; (2) every along edge belongs to an element allowing along
    moves and needs its abilities, and every such element keeps all its along edges; (3)
    every implicit edge joins nodes that some element pair joins without options, is of a
    kind both some owner of each end allow, and needs climbing plus both ends' holding
    abilities (an element's abilities without shimmy); (4) an implicit edge of the graph
    without options whose ends' owners all allow its kind (and whose ends are owned by no
    element whose along edges would now take the pair) is kept."""
    items = random_items(np.random.default_rng(seed), n)
    el, _ = C.make_elements(items)
    plain, _ = C.make_elements([it[:3] for it in items])
    params = C.ClimbParams(max_link_distance=3.0, max_drop_height=4.0)
    g = C.build_climb_graph(el, params)
    g0 = C.build_climb_graph(plain, params)
    np.testing.assert_array_equal(g.node_position, g0.node_position)
    own = owners(g)
    moves, abil = el.moves.astype(int), el.abilities.astype(int)
    hold = abil & ~ABILITY_SHIMMY
    along = g.edge_kind == CLIMB_EDGE_ALONG
    for e in g.edge_element[along].tolist():
        assert moves[e] & 1
    np.testing.assert_array_equal(g.edge_abilities[along], abil[g.edge_element[along]])
    for e in range(el.kind.shape[0]):
        if moves[e] & 1:
            n_e = int(np.sum((g0.edge_element == e) & (g0.edge_kind == CLIMB_EDGE_ALONG)))
            assert int(np.sum(g.edge_element == e)) == n_e
    pairs0 = {tuple(sorted(p)) for p in g0.edge_nodes[g0.edge_kind != CLIMB_EDGE_ALONG]
              .tolist()}
    for (a, b), k, need in zip(g.edge_nodes[~along].tolist(), g.edge_kind[~along].tolist(),
                               g.edge_abilities[~along].tolist(), strict=True):
        assert tuple(sorted((a, b))) in pairs0
        fits = [(i, j) for i in own[a] for j in own[b] if i != j
                and (moves[i] >> k) & 1 and (moves[j] >> k) & 1]
        assert fits, (a, b, k)
        base = ABILITY_CLIMB | (ABILITY_BACK_JUMP if k == CLIMB_EDGE_BACK_JUMP else 0)
        assert any(need == base | hold[i] | hold[j] for i, j in fits)
    got = {tuple(sorted(p)) for p in g.edge_nodes.tolist()}
    along_pairs = {tuple(sorted(p)) for p in g.edge_nodes[along].tolist()}
    for (a, b), k in zip(g0.edge_nodes.tolist(), g0.edge_kind.tolist(), strict=True):
        if k == CLIMB_EDGE_ALONG:
            continue
        if all((moves[e] >> k) & 1 for e in own[a] | own[b]):
            pair = tuple(sorted((a, b)))
            assert pair in got or pair in along_pairs


def test_all_default_options_give_the_plain_graph():
    items = random_items(np.random.default_rng(7), 25)
    el, _ = C.make_elements([(*it[:3], ElementOptions()) for it in items])
    plain, _ = C.make_elements([it[:3] for it in items])
    g, g0 = C.build_climb_graph(el), C.build_climb_graph(plain)
    for name in ("node_position", "edge_nodes", "edge_kind", "edge_element", "edge_length",
                 "edge_abilities", "edge_bidirectional"):
        np.testing.assert_array_equal(getattr(g, name), getattr(g0, name), err_msg=name)


def test_bad_options_name_the_element():
    with pytest.raises(ValueError, match=r"'x-ledge'.*moves"):
        C.make_elements([item("x-ledge", CLIMB_LEDGE, (0, 0, 1), (2, 0, 1),
                              ElementOptions(moves=99))])
    with pytest.raises(ValueError, match=r"'x-ledge'.*abilities"):
        C.make_elements([item("x-ledge", CLIMB_LEDGE, (0, 0, 1), (2, 0, 1),
                              ElementOptions(abilities=-1))])


# ------------------------------------------------------------------ navmesh links
def test_link_kinds_of_an_element_limit_its_links_and_keep_the_other_elements():
    """A 2.5 m platform with a ledge on its front top edge (mount and hang links) and one
    on its back top edge allowed hang links only: the back ledge loses its mount links,
    the front ledge keeps all; no "no entry" warning for the limited ledge."""
    v, t = Scene().floor(-10, -10, 10, 10).box(-4, 0, 0, 4, 4, 2.5).arrays()
    s = BakeSettings(climbing_enabled=True, auto_ledges=False)
    nm = bake(v, t, s)
    hang_only = ElementOptions(links=1 << CLIMB_LINK_KINDS.index("hang"))
    items = [item("front-ledge", CLIMB_LEDGE, (-3, 0, 2.5), (3, 0, 2.5)),
             item("back-ledge", CLIMB_LEDGE, (-3, 4, 2.5), (3, 4, 2.5), hang_only)]
    out, warnings = C.add_climbing(nm, items, v, t, s)
    assert warnings == []
    plain, _ = C.add_climbing(nm, [it[:3] for it in items], v, t, s)
    front, back = (set(n.tolist()) for n in C.build_climb_graph(
        C.make_elements(items)[0]).element_nodes)
    for nmx, want_back in ((plain, {CLIMB_LINK_MOUNT, CLIMB_LINK_HANG}),
                           (out, {CLIMB_LINK_HANG})):
        at_back = np.isin(nmx.climb_link_node, list(back))
        at_front = np.isin(nmx.climb_link_node, list(front))
        assert set(nmx.climb_link_kind[at_back].tolist()) == want_back
        assert set(nmx.climb_link_kind[at_front].tolist()) == {CLIMB_LINK_MOUNT,
                                                                CLIMB_LINK_HANG}
    assert out.stats["climb_links"] == out.climb_link_kind.shape[0]
    assert out.climb_link_kind.shape[0] == plain.climb_link_kind.shape[0] - int(
        np.sum(np.isin(plain.climb_link_node, list(back))
               & (plain.climb_link_kind == CLIMB_LINK_MOUNT)))
