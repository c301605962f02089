"""Region merging (islands removed, small regions merged) against a plain-Python reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenes import Scene, self_stacked_region_scene

from blender_navjump.core import BakeSettings, bake, regions


def _reference(reg, span_area, span_con, cell_index, cell_count, n, min_area, merge_area):
    """The documented rules with Python sets, one region at a time."""
    count = np.bincount(reg, minlength=n + 1).astype(int)
    area_of = np.zeros(n + 1, int)
    area_of[reg] = span_area
    nbrs = [set() for _ in range(n + 1)]
    floors = [set() for _ in range(n + 1)]
    wall = np.zeros(n + 1, bool)
    for i, r in enumerate(reg):
        if r == 0:
            continue
        for a in span_con[i]:
            o = reg[a] if a >= 0 else 0
            if o == 0:
                wall[r] = True
            elif o != r:
                nbrs[r].add(int(o))
                nbrs[o].add(int(r))  # region adjacency is mutual even where spans' is not
    for c in range(cell_index.shape[0]):
        col = [int(r) for r in reg[cell_index[c]:cell_index[c] + cell_count[c]] if r]
        for a in col:
            floors[a].update(b for b in col if b != a)
    removed = set()
    seen = set()
    for r0 in range(1, n + 1):
        if r0 in seen or count[r0] == 0:
            continue
        group, stack = [], [r0]
        seen.add(r0)
        while stack:
            r = stack.pop()
            group.append(r)
            for o in nbrs[r] - seen:
                seen.add(o)
                stack.append(o)
        if sum(count[r] for r in group) < min_area:
            removed.update(group)
            for r in group:
                count[r] = 0
                nbrs[r] = set()
    parent = list(range(n + 1))

    def root(r):
        while parent[r] != r:
            r = parent[r]
        return r

    changed = True
    while changed:
        changed = False
        for r in range(1, n + 1):
            if parent[r] != r or count[r] == 0:
                continue
            if count[r] > merge_area and wall[r]:
                continue
            options = [o for o in nbrs[r] if area_of[o] == area_of[r] and o not in floors[r]]
            if not options:
                continue
            best = min(options, key=lambda o: (count[o], o))
            parent[r] = best
            wall[best] |= wall[r]
            count[best] += count[r]
            count[r] = 0
            for o in nbrs[r]:
                nbrs[o].discard(r)
                if o != best:
                    nbrs[o].add(best)
                    nbrs[best].add(o)
            nbrs[best].discard(best)
            nbrs[r] = set()
            floors[best] |= floors[r]
            for o in floors[r]:
                floors[o].add(best)
            changed = True
    final, next_id = {}, 1
    out = np.zeros(n + 1, np.int32)
    for r in range(1, n + 1):
        if r in removed:
            continue
        k = root(r)
        if k not in final:
            final[k] = next_id
            next_id += 1
        out[r] = final[k]
    return out[reg], next_id - 1


def test_span_links_one_way_give_mutual_region_links():
    # span 0 (region 1) links to span 1 (region 2); span 1 links nowhere
    reg = np.array([1, 2], np.int32)
    con = np.array([[1, -1, -1, -1], [-1, -1, -1, -1]], np.int32)
    a_start, a_items, _fs, _fi = regions._region_graph(reg, con, np.array([0, 1], np.int32),
                                                       np.array([1, 1], np.int32), 2)
    assert sorted(a_items[a_start[1]:a_start[2]]) == [0, 2]
    assert sorted(a_items[a_start[2]:a_start[3]]) == [0, 1]


def _captured_merges(monkeypatch, v, t, s):
    calls = []
    original = regions.merge_and_filter_regions

    def spy(chf, reg, n, min_area, merge_area):
        before = reg.copy()
        count = original(chf, reg, n, min_area, merge_area)
        calls.append((chf, before, reg.copy(), n, count, min_area, merge_area))
        return count

    monkeypatch.setattr(regions, "merge_and_filter_regions", spy)
    bake(v, t, s)
    monkeypatch.undo()
    assert calls
    return calls


def _check(calls):
    for chf, before, after, n, count, min_area, merge_area in calls:
        want, want_count = _reference(before, chf.span_area, chf.span_con, chf.cell_index,
                                      chf.cell_count, n, min_area, merge_area)
        np.testing.assert_array_equal(after, want)
        assert count == want_count


@pytest.mark.parametrize("partition", ["watershed", "monotone"])
def test_merge_matches_reference_on_stacked_level(monkeypatch, partition):
    v, t = (Scene().floor(0, 0, 16, 12).box(2, 2, 0, 6, 5, 0.6).box(9, 1, 2.5, 14, 8, 2.8)
            .box(3, 8, 0, 3.8, 8.8, 2.0).arrays())
    calls = _captured_merges(monkeypatch, v, t, BakeSettings(partition=partition,
                                                              multi_stance=True))
    _check(calls)
    assert max(c[3] for c in calls) > calls[0][4]  # some regions were merged or removed


def test_crash_case_from_the_fuzz_audit(monkeypatch):
    # the fuzz audit's scene (see test_bad_input_bake.py): the merge matches the reference
    _check(_captured_merges(monkeypatch, *self_stacked_region_scene()))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), partition=st.sampled_from(["watershed", "monotone"]),
       min_size=st.integers(0, 12), merge_size=st.integers(0, 40))
def test_merge_matches_reference_on_random_levels(seed, partition, min_size, merge_size):
    rng = np.random.default_rng(seed)
    sc = Scene().floor(0, 0, 20, 20)
    for _ in range(8):
        x, y = rng.uniform(0, 18, 2)
        w, h = rng.uniform(0.5, 4, 2)
        sc.box(x, y, 0, x + w, y + h, rng.uniform(0.2, 3))
    v, t = sc.arrays()
    s = BakeSettings(partition=partition, multi_stance=True, region_min_size=min_size,
                     region_merge_size=merge_size)
    with pytest.MonkeyPatch.context() as mp:
        _check(_captured_merges(mp, v, t, s))
