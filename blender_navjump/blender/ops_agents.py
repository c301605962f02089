"""Operators for the agent list, the area types and agents' area costs (issue 14)."""

from __future__ import annotations

from bpy.props import BoolProperty
from bpy.types import Operator

from . import props_agents
from .props_agents import copy_scene_sliders
from .stub_gaps import register_classes_factory


def _unique(names, base: str) -> str:
    if base not in names:
        return base
    k = 2
    while f"{base}_{k}" in names:
        k += 1
    return f"{base}_{k}"


def _changed(context, op) -> set[str]:
    """Every operator here changes what a bake makes: Auto re-bake (where it is on)."""
    props_agents.nav_settings_changed(context.scene, f"{op.bl_label}: agent or area types "
                                                     f"changed")
    return {'FINISHED'}


class NAVJUMP_OT_agent_add(Operator):
    """Add an agent type (a copy of the scene's agent sliders)"""

    bl_idname = "navjump.agent_add"
    bl_label = "Add Agent"
    bl_options = {'REGISTER', 'UNDO'}

    def execute(self, context):
        pg = context.scene.navjump_agents
        agent = pg.agents.add()
        agent.name = _unique({a.name for a in pg.agents if a != agent}, "agent")
        copy_scene_sliders(agent, context.scene.navjump)
        pg.active_agent = len(pg.agents) - 1
        return _changed(context, self)


class NAVJUMP_OT_agent_remove(Operator):
    """Remove the active agent type"""

    bl_idname = "navjump.agent_remove"
    bl_label = "Remove Agent"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return len(context.scene.navjump_agents.agents) > 0

    def execute(self, context):
        pg = context.scene.navjump_agents
        i = min(max(pg.active_agent, 0), len(pg.agents) - 1)
        pg.agents.remove(i)
        pg.active_agent = max(0, min(i, len(pg.agents) - 1))
        return _changed(context, self)


class NAVJUMP_OT_area_add(Operator):
    """Add an area type (give it to modifier volumes; set its cost per agent)"""

    bl_idname = "navjump.area_add"
    bl_label = "Add Area Type"
    bl_options = {'REGISTER', 'UNDO'}

    def execute(self, context):
        pg = context.scene.navjump_agents
        area = pg.areas.add()
        area.name = _unique({a.name for a in pg.areas if a != area}, "area")
        pg.active_area = len(pg.areas) - 1
        return _changed(context, self)


class NAVJUMP_OT_area_remove(Operator):
    """Remove the active area type"""

    bl_idname = "navjump.area_remove"
    bl_label = "Remove Area Type"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        return len(context.scene.navjump_agents.areas) > 0

    def execute(self, context):
        pg = context.scene.navjump_agents
        i = min(max(pg.active_area, 0), len(pg.areas) - 1)
        pg.areas.remove(i)
        pg.active_area = max(0, min(i, len(pg.areas) - 1))
        return _changed(context, self)


class NAVJUMP_OT_agent_cost_add(Operator):
    """Give the active agent its own cost for the active area type"""

    bl_idname = "navjump.agent_cost_add"
    bl_label = "Add Area Cost"
    bl_options = {'REGISTER', 'UNDO'}
    remove: BoolProperty(default=False, options={'SKIP_SAVE'})

    @classmethod
    def poll(cls, context):
        pg = context.scene.navjump_agents
        return 0 <= pg.active_agent < len(pg.agents)

    def execute(self, context):
        pg = context.scene.navjump_agents
        agent = pg.agents[pg.active_agent]
        if self.remove:
            if len(agent.area_costs):
                agent.area_costs.remove(min(agent.active_cost, len(agent.area_costs) - 1))
                agent.active_cost = max(0, agent.active_cost - 1)
            return _changed(context, self)
        cost = agent.area_costs.add()
        if 0 <= pg.active_area < len(pg.areas):
            cost.area = pg.areas[pg.active_area].name
        agent.active_cost = len(agent.area_costs) - 1
        return _changed(context, self)


classes = (NAVJUMP_OT_agent_add, NAVJUMP_OT_agent_remove, NAVJUMP_OT_area_add,
           NAVJUMP_OT_area_remove, NAVJUMP_OT_agent_cost_add)

register, unregister = register_classes_factory(classes)
