"""Several agent types baked from one scene, sharing work (issue 14).

An :class:`Agent` is a name, its :class:`BakeSettings` and its area costs. :func:`bake_agents`
bakes every agent into its own NavMesh; agents with the same voxel settings share the
rasterisation (same ``cell_size``, ``cell_height``, ``agent_max_slope``, ``agent_max_climb``)
and also the filtered and compact heightfields (same ``walkable`` height and filter switches
as well): only erosion (``agent_radius``), regions, polygons, detail and links run per agent.
"""

from __future__ import annotations

import math
import re
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
                walkable=None, volumes=(), custom_links=()) -> dict:
    """Bake every agent: ``{name: NavMesh}``, in the order given (see module doc).

    Agent names must differ. Every agent is checked (settings, fit, area names) before the
    first bake; a failure raises ValueError naming the agent.
    """
    from .custom_links import add_custom_links
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
    out = {}
    for i, agent in enumerate(agents):
        def sub(stage, f, i=i):
            if progress is not None:
                progress(f"{agents[i].name}: {stage}", (i + f) / len(agents))
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
        out[agent.name] = nm
    return out
