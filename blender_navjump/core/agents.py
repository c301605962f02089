"""Several agent types baked from one scene, sharing work (issue 14).

An :class:`Agent` is a name, its :class:`BakeSettings` and its area costs. :func:`bake_agents`
bakes every agent into its own NavMesh; agents with the same voxel settings share the
rasterisation (same ``cell_size``, ``cell_height``, ``agent_max_slope``, ``agent_max_climb``)
and also the filtered and compact heightfields (same ``walkable`` height and filter switches
as well): only erosion (``agent_radius``), regions, polygons, detail and links run per agent;
agents with the same grid and slope share the link stage's input-triangle index. Two agents
bake at a time, on the calling thread and a helper thread (``_OverlappedBakes``), with the
same results as one after the other.
"""

from __future__ import annotations

import math
import os
import queue
import re
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from .areas import parse_cost
from .settings import BakeSettings, SettingsError

AGENT_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
AREA_COST_PREFIX = "area_cost."


class Agent(NamedTuple):
    """One agent type: ``name`` (used in file names), settings, area cost per area name
    (a cost < 0 or inf: the agent never walks there; missing areas cost 1)."""

    name: str
    settings: BakeSettings
    area_cost: Mapping[str, float] = {}


def agent_out_path(out, name: str) -> str:
    """``OUT.json`` -> ``OUT.<name>.json``: where an agent's navmesh goes (the other formats
    follow from it as for a single bake)."""
    import pathlib

    p = pathlib.Path(out)
    stem = p.name[:-len(".json")] if p.name.lower().endswith(".json") else p.name
    return str(p.with_name(f"{stem}.{name}.json"))


def parse_agent(text: str, base: BakeSettings,
                area_cost: Mapping[str, float] | None = None) -> Agent:
    """``NAME:field=value[,field=value...]`` (fields of BakeSettings, or
    ``area_cost.AREA=COST``) over ``base``; ValueError naming the agent and the field."""
    name, _, spec = text.partition(":")
    name = name.strip()
    if not AGENT_NAME.match(name):
        raise ValueError(f"--agent {text!r}: an agent needs a name of letters, digits, _ . - "
                         f"before ':' (e.g. dog:agent_radius=0.3)")
    values: dict[str, Any] = {}
    costs = dict(area_cost or {})
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        if "=" not in item:
            raise ValueError(f"agent {name!r}: expected field=value, got {item!r}")
        field, value = (s.strip() for s in item.split("=", 1))
        try:
            if field.startswith(AREA_COST_PREFIX):
                area = field[len(AREA_COST_PREFIX):]
                costs[area] = parse_cost(area, value)
            else:
                values[field] = BakeSettings.parse_value(field, value)
        except ValueError as exc:
            raise ValueError(f"agent {name!r}: {exc}") from None
    try:
        settings = base.with_values(**values).validate()
    except ValueError as exc:
        raise ValueError(f"agent {name!r}: {exc}") from None
    return Agent(name, settings, costs)


def check_agent_fits(agent: Agent, vertices) -> None:
    """ValueError naming the agent when its radius is larger than the level itself."""
    v = np.asarray(vertices, np.float64).reshape(-1, 3)
    if v.shape[0] == 0:
        return
    span = v[:, :2].max(axis=0) - v[:, :2].min(axis=0)
    if 2.0 * agent.settings.agent_radius > float(span.max()):
        raise SettingsError(
            "agent_radius", f"agent {agent.name!r}: a radius of "
            f"{agent.settings.agent_radius:g} m is larger than the level "
            f"({span[0]:.3g} x {span[1]:.3g} m): nothing could be walkable")


def apply_area_costs(nm, costs: Mapping[str, float], who: str = "") -> None:
    """Set ``nm.area_cost`` for the named areas; ValueError for a name not in the table."""
    names = [str(n) for n in nm.area_names]
    cost = np.array(nm.area_cost, np.float64)
    for area, c in costs.items():
        if area not in names or area == names[0]:
            raise ValueError(f"{who}area {area!r} is not in the scene; its areas are "
                             f"{', '.join(names[1:])}")
        cost[names.index(area)] = math.inf if c < 0 else c
    nm.area_cost = cost


def bake_agents(vertices, triangles, agents: Sequence[Agent], progress=None, *,
                walkable=None, volumes=(), custom_links=(), overlap: bool | None = None) -> dict:
    """Bake every agent: ``{name: NavMesh}``, in the order given (see module doc).

    Agent names must differ. Every agent is checked (settings, fit, area names) before the
    first bake; a failure raises ValueError naming the agent.

    ``overlap`` (default: when the pool has two or more threads, no agent is tiled, the
    load average leaves a core free, ``_core_free``, two bakes fit in memory at once,
    ``_two_fit``, and the first agent's thread gets most of a core, ``_OverlappedBakes``;
    True: always, whatever the load, memory or tiles; False: never): bake two agents at a
    time, on the calling thread and one helper thread; each agent starts once the one
    before it has passed its shared stages. ``stats["agents_overlapped"]`` of every
    NavMesh says whether they did. The results are the same as one after the other;
    ``progress`` is called on the calling thread only (a ``BakeCancelled`` it raises stops
    both), with the agents' fractions added up. A
    failing agent's error is raised as the first failure in agent order would be.
    """
    from .custom_links import add_custom_links
    from .parallel import worker_count
    from .pipeline import bake
    from .stages import shared_keys

    seen: set[str] = set()
    for agent in agents:
        if agent.name in seen:
            raise ValueError(f"agent {agent.name!r} is given twice")
        seen.add(agent.name)
        try:
            agent.settings.validate()
        except ValueError as exc:
            raise ValueError(f"agent {agent.name!r}: {exc}") from None
        check_agent_fits(agent, vertices)
    # how many bakes after the first of each group reuse its stages (the last one takes
    # the stored value without a copy); agents sharing the compact heightfield never ask
    # for the solid one
    keys = [shared_keys(a.settings) for a in agents]
    first_ckeys = {ckey: rkey for rkey, ckey in keys}
    uses: dict = {}
    for _rkey, ckey in keys:
        uses[ckey] = uses.get(ckey, -1) + 1
    for rkey in first_ckeys.values():
        uses[rkey] = uses.get(rkey, -1) + 1
    shared: dict = {"uses": uses}
    link_areas = {k.area for k in custom_links if getattr(k, "area", "")}

    def bake_one(i: int, sub) -> Any:
        agent = agents[i]
        nm = bake(vertices, triangles, agent.settings, sub, walkable=walkable,
                  volumes=volumes, shared=shared)
        nm = add_custom_links(nm, custom_links, agent.settings, agent.area_cost)
        # an area only hand-placed links use is in the table once one of them is placed;
        # one whose links are all left out (not walkable for this agent) is not
        table = {str(n) for n in nm.area_names}
        apply_area_costs(nm, {a: c for a, c in agent.area_cost.items()
                              if a in table or a not in link_areas},
                         f"agent {agent.name!r}: ")
        if agent.name:
            nm.stats["agent"] = agent.name
        return nm

    adaptive = overlap is None
    if overlap is None:
        overlap = (len(agents) > 1 and worker_count() >= 2
                   and not any(a.settings.tile_size for a in agents)
                   and _core_free() and _two_fit(vertices, triangles, agents))
    overlapped = False
    if overlap and len(agents) > 1:
        runs = _OverlappedBakes(len(agents), [a.name for a in agents], progress, adaptive)
        results = runs.run(bake_one)
        overlapped = not runs.one_at_a_time
    else:
        fractions = [0.0] * len(agents)

        def report(i, stage, f):
            fractions[i] = f
            if progress is not None:
                progress(f"{agents[i].name}: {stage}", sum(fractions) / len(agents))

        results = [bake_one(i, lambda stage, f, i=i: report(i, stage, f))
                   for i in range(len(agents))]
    for nm in results:
        nm.stats["agents_overlapped"] = overlapped
    return {agent.name: nm for agent, nm in zip(agents, results, strict=True)}


# a second bake starts beside the first only while the load average (runnable threads,
# this process's included) leaves at least this much of a core free
FREE_CORE = 0.5


def load_average() -> float | None:
    """The system's one-minute load average, or None where there is none (Windows)."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return None


def _core_free() -> bool:
    """The machine has a core to spare for a second bake: the load average is at least
    ``FREE_CORE`` below the CPU count (or unknown)."""
    load = load_average()
    return load is None or load <= (os.cpu_count() or 1) - FREE_CORE


# spans per cell assumed by the memory check of overlapped bakes (a few floors per column)
OVERLAP_SPANS_PER_CELL = 4


def _two_fit(vertices, triangles, agents: Sequence[Agent]) -> bool:
    """Two bakes at once fit in memory: twice the largest agent's estimated peak
    (``settings.estimate_bake_bytes`` for its grid over every vertex, with
    ``OVERLAP_SPANS_PER_CELL`` spans per cell) within the first agent's memory limit. Else
    the agents bake one after the other (each bake still checks its own estimate)."""
    from .settings import estimate_bake_bytes, memory_limit

    try:
        v = np.asarray(vertices, np.float64).reshape(-1, 3)
        n_tris = int(np.asarray(triangles).reshape(-1, 3).shape[0])
    except (TypeError, ValueError):
        return False  # the bake refuses it with a clear message
    if v.shape[0] == 0 or not np.isfinite(v[:, :2]).all():
        return False
    span = v[:, :2].max(axis=0) - v[:, :2].min(axis=0)
    peak = 0
    for agent in agents:
        cs = agent.settings.cell_size
        cells = [int(x / cs + 0.5) + 1 for x in span]
        peak = max(peak, estimate_bake_bytes(
            cells[0], cells[1], n_tris, OVERLAP_SPANS_PER_CELL * cells[0] * cells[1],
            agent.settings.links_enabled))
    return 2 * peak <= memory_limit(agents[0].settings).available


class _Abandoned(Exception):
    """Stops a helper-thread bake whose result is no longer wanted (cancelled, or an
    earlier agent failed)."""


# stages after the ones agents share (``stages.shared_keys``): a bake reporting one of
# these has stored or taken its shared heightfields
_AFTER_SHARED = frozenset(("stances", "erode", "regions", "contours", "polygons", "detail",
                           "links", "done"))
_WAIT_S = 0.02  # how often the calling thread passes on the helper's progress while waiting
# the share of a core the first agent's thread must get through the shared stages for a
# second bake to start beside it (default overlap), measured over at least BUSY_MIN_S
BUSY_SHARE = 0.75
BUSY_MIN_S = 0.002


class _OverlappedBakes:
    """Bakes agents 0..n-1 on two threads, the calling one and a helper, each taking the
    next agent in order; agent i starts once agent i-1 has passed its shared stages (or
    ended), so the first agent of each group has computed and stored them before a later
    one asks (``stages.shared_stage``). Progress goes through a queue to the calling
    thread, which alone calls ``progress``.

    ``adaptive``: when the first agent's thread got less than ``BUSY_SHARE`` of a core
    (its CPU time against the wall time) through the shared stages, the machine's cores
    are busy with other work and a second bake beside it would only share them: every
    agent then starts once the one before it has ended (one after the other)."""

    def __init__(self, n: int, names: list[str], progress, adaptive: bool = False):
        self.n = n
        self.names = names
        self.progress = progress
        self.adaptive = adaptive
        self.one_at_a_time = False
        self.started: list = [None] * n  # (wall, thread CPU) when each agent started
        self.lock = threading.Lock()
        self.passed = [threading.Event() for _ in range(n)]
        self.ended = [threading.Event() for _ in range(n)]
        self.stop = threading.Event()  # cancelled, or the caller's progress failed
        self.messages: queue.SimpleQueue = queue.SimpleQueue()
        self.fractions = [0.0] * n
        self.results: list = [None] * n
        self.errors: dict[int, BaseException] = {}
        self.abort: BaseException | None = None  # what the caller's progress raised
        self.next = 0
        self.caller = threading.get_ident()

    # -- progress, on the calling thread
    def forward(self, i: int, stage: str, f: float) -> None:
        self.fractions[i] = f
        if self.progress is None or self.abort is not None:
            return
        try:
            self.progress(f"{self.names[i]}: {stage}", sum(self.fractions) / self.n)
        except BaseException as exc:
            self.abort = exc
            self.stop.set()
            raise

    def drain(self) -> None:
        while True:
            try:
                msg = self.messages.get_nowait()
            except queue.Empty:
                return
            self.forward(*msg)

    def unwanted(self, i: int) -> bool:
        with self.lock:
            return self.stop.is_set() or any(j < i for j in self.errors)

    def report(self, i: int, stage: str, f: float) -> None:
        if stage in _AFTER_SHARED and not self.passed[i].is_set():
            if i == 0 and self.adaptive:
                wall0, cpu0 = self.started[0]
                wall = time.perf_counter() - wall0
                if wall >= BUSY_MIN_S and time.thread_time() - cpu0 < BUSY_SHARE * wall:
                    self.one_at_a_time = True
            self.passed[i].set()
        if threading.get_ident() == self.caller:
            self.drain()
            self.forward(i, stage, f)
        else:
            self.messages.put((i, stage, f))
        if self.unwanted(i):
            raise _Abandoned

    # -- the two runners
    def take(self) -> int | None:
        with self.lock:
            if self.stop.is_set() or self.errors or self.next >= self.n:
                return None
            self.next += 1
            return self.next - 1

    def runner(self, first: int | None = None) -> None:
        on_caller = threading.get_ident() == self.caller
        i = self.take() if first is None else first
        while i is not None:
            try:
                if i:
                    for events in (self.passed, self.ended):
                        while not events[i - 1].wait(_WAIT_S):
                            if on_caller:
                                self.drain()
                        if not self.one_at_a_time:
                            break
                if self.unwanted(i):
                    break
                self.started[i] = (time.perf_counter(), time.thread_time())
                self.results[i] = self.bake_one(i, lambda stage, f, i=i: self.report(
                    i, stage, f))
            except _Abandoned:
                pass
            except BaseException as exc:
                with self.lock:
                    self.errors[i] = exc
                if exc is self.abort:
                    break
            finally:
                self.passed[i].set()
                self.ended[i].set()
            i = self.take()

    def run(self, bake_one) -> list:
        self.bake_one = bake_one
        first = self.take()  # the first agent on the calling thread
        helper = threading.Thread(target=self.runner, name="navjump-agent", daemon=True)
        helper.start()
        try:
            self.runner(first)
        finally:
            # the helper's bake stops at its next stage when unwanted; its progress is
            # passed on until it ends (nothing more once the caller's progress failed)
            while helper.is_alive():
                helper.join(_WAIT_S)
                try:
                    self.drain()
                except BaseException:
                    pass  # kept in self.abort
        try:
            self.drain()
        except BaseException:
            pass
        if self.abort is not None:
            raise self.abort
        if self.errors:
            raise self.errors[min(self.errors)]
        return self.results
