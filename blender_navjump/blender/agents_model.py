"""Agent types of a Blender scene as core agents (issue 14); no bpy here.

The scene's sliders (``scene.navjump``) are the base settings; each agent in the scene's
agent list (``scene.navjump_agents``, :mod:`.props_agents`) overrides the fields in
:data:`AGENT_FIELDS` with its own values. Every agent keeps the scene's cell size and
height (the Advanced panel's, or "auto" from the scene's radius), so agents share the
rasterisation (``core.agents``). An agent's area costs come from the scene's area types
(:mod:`.props_agents`): ``cost`` per agent, or "not walkable" (inf).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ..core.agents import AGENT_NAME, Agent
from ..core.settings import BakeSettings, SettingsError

# The BakeSettings fields an agent type sets (the rest come from the scene's sliders).
AGENT_FIELDS = ("agent_radius", "agent_height", "multi_stance", "stand_height",
                "crouch_height", "prone_height", "stand_enabled", "crouch_enabled",
                "prone_enabled", "agent_max_climb", "agent_max_slope", "links_enabled",
                "max_jump_height", "max_jump_distance", "max_drop_height")


class AgentRow(NamedTuple):
    """One agent as the UI holds it: its name, its field values (``AGENT_FIELDS``) and its
    cost per area name (inf: not walkable)."""

    name: str
    values: Mapping[str, Any]
    area_cost: Mapping[str, float]


class AgentError(SettingsError):
    """An agent of the scene's list is unusable; the message names the agent and setting."""


def _tidy(x: float) -> float:
    # Blender stores float32: six significant digits give back what the user typed.
    return float(f"{float(x):.6g}")


def agent_settings(base: BakeSettings, row: AgentRow) -> BakeSettings:
    """``base`` with the agent's fields, validated; AgentError naming the agent."""
    values = {}
    for name in AGENT_FIELDS:
        if name in row.values:
            v = row.values[name]
            values[name] = v if isinstance(v, bool) else _tidy(v)
    try:
        return base.with_values(**values).validate()
    except SettingsError as exc:
        raise AgentError(exc.setting, f"agent {row.name!r}: "
                                      f"{str(exc).partition(': ')[2]}") from None


def core_agents(base: BakeSettings, rows: Sequence[AgentRow],
                known_areas: Iterable[str] = ()) -> list[Agent]:
    """The core agents of the scene's list, checked: names (non-empty, file-name safe,
    unique), settings, and area costs (an area not in ``known_areas`` is an error)."""
    known = set(known_areas)
    seen: set[str] = set()
    out = []
    for i, row in enumerate(rows):
        if not AGENT_NAME.match(row.name or ""):
            raise AgentError("name", f"agent {i + 1} ({row.name!r}): a name of letters, "
                                     f"digits, _ . - is needed (it names the export files)")
        if row.name in seen:
            raise AgentError("name", f"agent {row.name!r}: two agents have this name")
        seen.add(row.name)
        settings = agent_settings(base, row)
        costs = {}
        for area, cost in row.area_cost.items():
            if known and area not in known:
                raise AgentError("area_cost", f"agent {row.name!r}: area {area!r} is not "
                                              f"one of the scene's area types")
            if not (cost > 0 or math.isinf(cost)):
                raise AgentError("area_cost", f"agent {row.name!r}: the cost of area "
                                              f"{area!r} is {cost:g}; use a cost > 0, or "
                                              f"'Not Walkable'")
            costs[area] = float(cost)
        out.append(Agent(row.name, settings, costs))
    return out


def shown_agent(names: Sequence[str], chosen: str) -> str:
    """The agent the overlay, path test and export show: ``chosen`` if it was baked, else
    the first one ("" when the bake had no agent list)."""
    if chosen in names:
        return chosen
    return names[0] if names else ""


def agent_rows(scene) -> list[AgentRow]:
    """The scene's agent list as :class:`AgentRow` (area costs: the agent's own, else each
    area type's default when it is not 1)."""
    pg = scene.navjump_agents
    defaults = {a.name: float(a.cost) for a in pg.areas if a.cost != 1.0}
    rows = []
    for agent in pg.agents:
        values = {name: getattr(agent, name) for name in AGENT_FIELDS}
        costs = dict(defaults)
        for c in agent.area_costs:
            costs[c.area] = float("inf") if c.not_walkable else float(c.cost)
        rows.append(AgentRow(agent.name, values, costs))
    return rows


def area_names(scene) -> list[str]:
    """The scene's area type names (``scene.navjump_agents.areas``)."""
    return [a.name for a in scene.navjump_agents.areas]
