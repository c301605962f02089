"""The Blender bake of several agents, modifier volumes and hand-placed links (issue 14).

:func:`add_agents` (bpy side, before the bake) turns the scene's agent list into core
agents, checked; :func:`bake_all` (the bake's worker thread: no bpy) bakes them through
``core.agents.bake_agents``, which shares the rasterisation and the compact heightfield
between agents with the same voxel settings.
"""

from __future__ import annotations

from .agents_model import agent_rows, area_names, core_agents, shown_agent


def prepare_nav(context, settings, gathered) -> None:
    """Collect the volumes and links of the bake's objects and the scene's agents into
    ``gathered.nav``; SettingsError / ValueError naming the object or agent."""
    from .gather_nav import scene_nav_objects

    pg = context.scene.navjump
    gathered.nav = scene_nav_objects(
        context, pg.source_collection if pg.source == 'COLLECTION' else None,
        context.evaluated_depsgraph_get())
    add_agents(context.scene, settings, gathered)


def add_agents(scene, settings, gathered) -> None:
    """Put the scene's checked agents (and the one to show) into ``gathered.nav``;
    SettingsError / ValueError naming the agent and setting when one is unusable."""
    from ..core.agents import Agent, check_agent_fits

    nav = gathered.nav
    if nav is None:
        return
    pg = getattr(scene, "navjump_agents", None)
    rows = agent_rows(scene) if pg is not None else []
    known = area_names(scene) if pg is not None else []
    agents = core_agents(settings, rows, known)
    for agent in agents:
        check_agent_fits(agent, gathered.vertices)
    names = [a.name for a in agents]
    # an area type no volume uses is not in the navmesh's area table: its cost is moot
    used = {v.area for v in nav.volumes if v.kind == "area"}
    used |= {k.area for k in nav.links if k.area}
    agents = [a._replace(area_cost={k: c for k, c in a.area_cost.items() if k in used})
              for a in agents]
    if not agents and pg is not None:  # no agent list: the area types' default costs
        defaults = {a.name: float(a.cost) for a in pg.areas
                    if a.name in used and a.cost != 1.0}
        if defaults:
            agents = [Agent("", settings, defaults)]
    gathered.nav = nav._replace(agents=agents,
                                shown=shown_agent(names, pg.shown if pg is not None else ""))


def bake_all(gathered, settings, progress):
    """(shown NavMesh, {name: NavMesh} or None for a single agent)."""
    from ..core.agents import Agent, bake_agents

    nav = gathered.nav
    agents = nav.agents or [Agent("", settings, {})]
    results = bake_agents(gathered.vertices, gathered.triangles, agents, progress,
                          walkable=gathered.walkable, volumes=nav.volumes,
                          custom_links=nav.links)
    several = bool(nav.agents) and nav.agents[0].name != ""
    return results[nav.shown if several else ""], (results if several else None)


def climb_all(result, results, gathered, settings):
    """Add the gathered climb objects' graph to the shown NavMesh and to every agent's
    (each with its own agent's settings): (result, results, warnings naming objects)."""
    from .climb_items import add_gathered_climbing

    if not results:
        result, warnings = add_gathered_climbing(result, gathered, settings)
        return result, results, warnings
    by_name = {a.name: a.settings for a in (gathered.nav.agents or [])}
    out, warnings = {}, []
    for name, navmesh in results.items():
        out[name], found = add_gathered_climbing(navmesh, gathered,
                                                 by_name.get(name, settings))
        warnings.extend(w for w in found if w not in warnings)
    shown = next((n for n, m in results.items() if m is result), None)
    return (out[shown] if shown is not None else result), out, warnings
