"""Issue 14: several agents with jump links on, baked two at a time (``bake_agents``'s
default) and one after the other: every agent's NavMesh equals a bake of its own; the link
stage's input-triangle index is built once per grid and slope; progress, cancel and errors
stay on the calling thread, in agent order. Small real bakes, no bpy."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenes import Scene

from blender_navjump.core import BakeSettings, bake
from blender_navjump.core import links as links_mod
from blender_navjump.core.agents import Agent, bake_agents
from blender_navjump.core.custom_links import CustomLink
from blender_navjump.core.parallel import worker_count
from blender_navjump.core.pipeline import BakeCancelled

BASE = BakeSettings(cell_size=0.2, cell_height=0.05, agent_radius=0.4, agent_height=1.8,
                    links_enabled=True)


def level():
    """Two platforms 2 m apart (jumps across), a 1.5 m ledge on the second (drops, jumps
    up) and a low wall: links for every kind, different for each radius."""
    s = Scene()
    s.box(0, 0, -1, 10, 8, 0.012)
    s.box(12, 0, -1, 24, 8, 0.012)
    s.box(18, 0, 0.012, 24, 8, 1.512)
    s.box(4, 3, 0.012, 5, 6, 0.6)
    v, t = s.arrays()
    return np.asarray(v, np.float64), np.asarray(t, np.int32)


def no_agent_threads() -> bool:
    return not any(t.name == "navjump-agent" for t in threading.enumerate())


def test_two_agents_with_links_equal_their_own_bakes_overlapped_or_not():
    v, t = level()
    agents = [Agent("wide", BASE.with_values(agent_radius=0.6)),
              Agent("slim", BASE.with_values(agent_radius=0.3))]
    alone = {a.name: bake(v, t, a.settings) for a in agents}
    assert all(nm.link_count > 0 for nm in alone.values())
    assert not alone["wide"].equals(alone["slim"])  # the radius changes the links too
    for overlap in (True, False):
        out = bake_agents(v, t, agents, overlap=overlap)
        assert list(out) == ["wide", "slim"]
        for name, nm in out.items():
            assert nm.equals(alone[name]), (name, overlap)
            assert nm.stats["agent"] == name
        # the second agent took the first one's compact heightfield
        assert out["slim"].stats["timings_ms"]["compact"] == 0.0
    assert no_agent_threads()


def test_link_triangle_index_is_built_once_per_grid_and_slope(monkeypatch):
    v, t = level()
    calls = []
    real = links_mod.start_triangle_index

    def counting(cfg, vertices, triangles):
        calls.append(links_mod.triangle_index_key(cfg))
        return real(cfg, vertices, triangles)

    monkeypatch.setattr(links_mod, "start_triangle_index", counting)
    # climb and radius differ (no shared heightfield for "climber"), grid and slope do not
    same = [Agent("a", BASE), Agent("b", BASE.with_values(agent_radius=0.25)),
            Agent("climber", BASE.with_values(agent_max_climb=0.25))]
    out = bake_agents(v, t, same)
    assert len(calls) == 1
    for a in same:
        assert out[a.name].equals(bake(v, t, a.settings))
    calls.clear()
    other = [Agent("a", BASE), Agent("steep", BASE.with_values(agent_max_slope=30.0)),
             Agent("coarse", BASE.with_values(cell_size=0.25))]
    out = bake_agents(v, t, other)
    assert len(calls) == 3 and len(set(calls)) == 3
    calls.clear()
    for a in other:
        assert out[a.name].equals(bake(v, t, a.settings))
    assert len(calls) == 3  # a bake of its own builds its own


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from([0.25, 0.4, 0.7]), st.sampled_from([0.2, 0.25]),
                          st.sampled_from([0.3, 0.45]), st.booleans()),
                min_size=2, max_size=4))
def test_agents_overlapped_equal_one_after_the_other(specs):
    """Whatever the mix of shared and unshared agents, baking them two at a time gives
    every agent exactly its serial result, in the order given."""
    v, t = level()
    agents = [Agent(f"a{i}", BASE.with_values(agent_radius=r, cell_size=cs,
                                              agent_max_climb=climb, links_enabled=links))
              for i, (r, cs, climb, links) in enumerate(specs)]
    serial = bake_agents(v, t, agents, overlap=False)
    both = bake_agents(v, t, agents, overlap=True)
    assert list(both) == [a.name for a in agents]
    for a in agents:
        assert both[a.name].equals(serial[a.name]), a


def test_progress_is_called_on_the_calling_thread_and_adds_up():
    v, t = level()
    agents = [Agent("wide", BASE.with_values(agent_radius=0.6)),
              Agent("slim", BASE.with_values(agent_radius=0.3)),
              Agent("coarse", BASE.with_values(cell_size=0.25))]
    seen = []
    caller = threading.get_ident()

    def progress(stage, fraction):
        seen.append((threading.get_ident(), stage, fraction))

    bake_agents(v, t, agents, progress, overlap=True)
    assert {ident for ident, _, _ in seen} == {caller}
    fractions = [f for _, _, f in seen]
    assert fractions == sorted(fractions)  # each agent's own fraction only grows
    assert fractions[-1] == pytest.approx(1.0)
    for a in agents:  # every agent reports every stage, the links included
        stages = [s for _, s, _ in seen if s.startswith(f"{a.name}: ")]
        assert f"{a.name}: links" in stages and stages[-1] == f"{a.name}: done"


@pytest.mark.parametrize("stop_at", ["wide: regions", "slim: erode", "slim: links",
                                     "coarse: detail"])
def test_cancel_stops_every_agent(stop_at):
    v, t = level()
    agents = [Agent("wide", BASE.with_values(agent_radius=0.6)),
              Agent("slim", BASE.with_values(agent_radius=0.3)),
              Agent("coarse", BASE.with_values(cell_size=0.25))]
    after = []

    def progress(stage, fraction):
        if after:
            after.append(stage)
        if stage == stop_at:
            after.append(stage)
            raise BakeCancelled()

    with pytest.raises(BakeCancelled):
        bake_agents(v, t, agents, progress, overlap=True)
    assert after == [stop_at]  # nothing reported after the cancel
    assert no_agent_threads()


def test_a_failing_agent_raises_as_in_agent_order():
    """The 'wide' agent's navmesh stops 1.8 m from the floor's edge, the others' 0.4 and
    0.6 m: a link end on the edge is too far for that agent only (the snap box reaches
    1 m)."""
    v, t = Scene().floor(0, 0, 10, 10).arrays()
    link = CustomLink("gate-link", (0.0, 5.0, 0.0), (5.0, 5.0, 0.0))
    base = BASE.with_values(links_enabled=False)
    agents = [Agent("slim", base.with_values(agent_radius=0.2)),
              Agent("wide", base.with_values(agent_radius=1.6)),
              Agent("slim2", base.with_values(agent_radius=0.25))]
    errors = []
    for overlap in (False, True):
        with pytest.raises(ValueError, match=r"link 'gate-link'") as exc:
            bake_agents(v, t, agents, custom_links=[link], overlap=overlap)
        errors.append(str(exc.value))
    assert errors[0] == errors[1]
    assert no_agent_threads()
    # without the wide agent the same link is placed for both
    out = bake_agents(v, t, [agents[0], agents[2]], custom_links=[link])
    assert all(nm.link_count == 1 for nm in out.values())


def test_overlap_is_the_default_with_two_threads_and_a_free_core():
    """bake_agents overlaps by default where the pool has two threads and the first
    agent's thread got most of a core through the shared stages: the second agent's bake
    then runs on the helper thread; ``stats["agents_overlapped"]`` says which happened.
    Forced (overlap=True) it always does."""
    if worker_count() < 2:
        pytest.skip("NAVJUMP_THREADS / the CPU count leave one thread: no overlap")
    v, t = level()
    agents = [Agent("wide", BASE.with_values(agent_radius=0.6)),
              Agent("slim", BASE.with_values(agent_radius=0.3))]
    threads, out = link_threads(v, t, agents)
    assert threads[0.6] == threading.current_thread().name
    assert out["slim"].stats["agents_overlapped"] == out["wide"].stats["agents_overlapped"]
    assert_as_reported(threads, out)
    threads, out = link_threads(v, t, agents, overlap=True)
    assert threads[0.3] == "navjump-agent" and out["slim"].stats["agents_overlapped"]
    threads, out = link_threads(v, t, agents, overlap=False)
    assert set(threads.values()) == {threading.current_thread().name}
    assert not out["slim"].stats["agents_overlapped"]


def test_busy_first_agent_thread_means_one_after_the_other():
    """A first agent whose thread got little CPU through the shared stages (here: a
    progress callback that sleeps, as a thread does whose core other work takes) makes
    the default bake the agents one after the other: no two link stages at once."""
    v, t = level()
    agents = [Agent("wide", BASE.with_values(agent_radius=0.6)),
              Agent("slim", BASE.with_values(agent_radius=0.3)),
              Agent("coarse", BASE.with_values(cell_size=0.25))]

    def slow(stage, fraction):
        if stage == "wide: filter":
            time.sleep(0.05)

    _threads, out = link_threads(v, t, agents, progress=slow)
    spans = sorted(LINK_SPANS)
    assert len(spans) == 3
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
    assert not any(nm.stats["agents_overlapped"] for nm in out.values())
    for a in agents:
        assert out[a.name].equals(bake(v, t, a.settings))


LINK_SPANS: list = []  # (start, end) of every link stage link_threads saw


def assert_as_reported(threads, out):
    """The two agents' bakes of ``link_threads`` ran as ``stats["agents_overlapped"]``
    says: overlapped, the second agent's on the helper thread; else one after the other,
    its link stage starting after the first's ended (on either thread: an adaptive
    fall-back, a busy machine, still bakes it on the helper, after the first)."""
    if out["slim"].stats["agents_overlapped"]:
        assert threads[0.3] == "navjump-agent"
    else:
        (_, first_end), (second_start, _) = sorted(LINK_SPANS)
        assert first_end <= second_start


def link_threads(v, t, agents, **kwargs):
    """{agent_radius: name of the thread its link stage ran on} for one bake_agents."""
    LINK_SPANS.clear()
    threads = {}
    real = links_mod.build_links

    def spy(nm, *args, **kw):
        threads[nm.settings["agent_radius"]] = threading.current_thread().name
        t0 = time.perf_counter()
        try:
            return real(nm, *args, **kw)
        finally:
            LINK_SPANS.append((t0, time.perf_counter()))

    mp = pytest.MonkeyPatch()
    mp.setattr(links_mod, "build_links", spy)
    try:
        out = bake_agents(v, t, agents, **kwargs)
    finally:
        mp.undo()
    return threads, out


def test_agents_that_would_not_fit_in_memory_twice_bake_one_after_the_other():
    """level(): a 121 x 41 cell grid, estimated at 4 spans a cell about 6.5 MB a bake:
    under a 10 MB limit one bake fits (its own check passes), two at once do not."""
    v, t = level()
    tight = BASE.with_values(memory_limit_gb=0.01)
    agents = [Agent("wide", tight.with_values(agent_radius=0.6)),
              Agent("slim", tight.with_values(agent_radius=0.3))]
    threads, out = link_threads(v, t, agents)
    assert set(threads.values()) == {threading.current_thread().name}
    for a in agents:
        assert out[a.name].equals(bake(v, t, a.settings))
    assert not out["slim"].stats["agents_overlapped"]
    from blender_navjump.core.agents import _two_fit

    assert not _two_fit(v, t, agents)
    roomy = [a._replace(settings=a.settings.with_values(memory_limit_gb=1.0)) for a in agents]
    assert _two_fit(v, t, roomy)


def test_no_free_core_means_one_after_the_other(monkeypatch):
    """A load average that leaves no core free (another job on every core) makes the
    default bake one agent after the other: no helper thread."""
    from blender_navjump.core import agents as agents_mod

    v, t = level()
    agents = [Agent("wide", BASE.with_values(agent_radius=0.6)),
              Agent("slim", BASE.with_values(agent_radius=0.3))]
    monkeypatch.setattr(agents_mod, "load_average", lambda: float(os.cpu_count() or 1))
    threads, out = link_threads(v, t, agents)
    assert set(threads.values()) == {threading.current_thread().name}
    assert not out["slim"].stats["agents_overlapped"]
    monkeypatch.setattr(agents_mod, "load_average", lambda: None)  # unknown: as free
    threads, out = link_threads(v, t, agents, overlap=None)
    if worker_count() >= 2:
        assert_as_reported(threads, out)
