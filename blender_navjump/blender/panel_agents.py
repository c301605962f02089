"""Sidebar panels for agent types and area types, and the object's navigation panel
(modifier volume, hand-placed link, no generated links) (issue 14)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpy.types import Panel, UILayout, UIList

from .stub_gaps import register_classes_factory

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import RegionTypeItems, SpaceTypeItems


class NAVJUMP_UL_agents(UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_property,
                  index=0, flt_flag=0):
        row = layout.row(align=True)
        row.prop(item, "name", text="", emboss=False, icon='OUTLINER_OB_ARMATURE')
        row.label(text=f"r {item.agent_radius:.2f}")


class NAVJUMP_UL_areas(UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_property,
                  index=0, flt_flag=0):
        row = layout.row(align=True)
        row.prop(item, "name", text="", emboss=False, icon='MOD_MASK')
        row.prop(item, "cost", text="")


class NAVJUMP_UL_area_costs(UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_property,
                  index=0, flt_flag=0):
        row = layout.row(align=True)
        row.prop_search(item, "area", context.scene.navjump_agents, "areas", text="")
        sub = row.row(align=True)
        sub.active = not item.not_walkable
        sub.prop(item, "cost", text="")
        row.prop(item, "not_walkable", text="", icon='CANCEL')


class _Sidebar:
    if TYPE_CHECKING:
        layout: UILayout
        bl_space_type: SpaceTypeItems
        bl_region_type: RegionTypeItems
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "NavJump"
    bl_parent_id = "NAVJUMP_PT_main"


def _baked_note(layout, scene) -> None:
    """Which agents the stored result holds and which one the result objects show."""
    from . import storage, storage_agents

    obj = storage.result_object(scene, storage.KIND_NAVMESH)
    mesh = obj.data if obj is not None and obj.type == 'MESH' else None
    names = storage_agents.baked_names(mesh)
    if not names:
        return
    shown = storage_agents.shown_name(scene, mesh)
    drawn = storage_agents.drawn_name(mesh)
    layout.label(text=f"Baked: {', '.join(names)}", icon='INFO')
    if drawn and drawn != shown:
        layout.label(text=f"Overlay: {shown}; result objects: {drawn} (bake to update)")


class NAVJUMP_PT_agent_types(_Sidebar, Panel):
    bl_label = "Agent Types"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        pg = context.scene.navjump_agents
        layout.label(text="Empty: one agent, the sliders above" if not len(pg.agents)
                     else "One navmesh per agent; voxels as above")
        row = layout.row()
        row.template_list("NAVJUMP_UL_agents", "", pg, "agents", pg, "active_agent", rows=3)
        col = row.column(align=True)
        col.operator("navjump.agent_add", text="", icon='ADD')
        col.operator("navjump.agent_remove", text="", icon='REMOVE')
        if len(pg.agents):
            layout.prop_search(pg, "shown", pg, "agents", text="Show")
            _baked_note(layout, context.scene)
        if not 0 <= pg.active_agent < len(pg.agents):
            return
        agent = pg.agents[pg.active_agent]
        layout.use_property_split = True
        layout.use_property_decorate = False
        col = layout.column(align=True)
        col.prop(agent, "agent_radius")
        col.prop(agent, "agent_max_climb")
        col.prop(agent, "agent_max_slope")
        layout.prop(agent, "multi_stance")
        col = layout.column(align=True)
        if agent.multi_stance:
            for stance in ("stand", "crouch", "prone"):
                row = col.row(align=True)
                row.prop(agent, f"{stance}_enabled", text="")
                row.prop(agent, f"{stance}_height")
        else:
            col.prop(agent, "agent_height")
        layout.prop(agent, "links_enabled")
        col = layout.column(align=True)
        col.active = agent.links_enabled
        col.prop(agent, "max_jump_height")
        col.prop(agent, "max_jump_distance")
        col.prop(agent, "max_drop_height")
        layout.use_property_split = False
        layout.label(text="Area costs")
        row = layout.row()
        row.template_list("NAVJUMP_UL_area_costs", "", agent, "area_costs", agent,
                          "active_cost", rows=2)
        col = row.column(align=True)
        col.operator("navjump.agent_cost_add", text="", icon='ADD')
        col.operator("navjump.agent_cost_add", text="", icon='REMOVE').remove = True


class NAVJUMP_PT_area_types(_Sidebar, Panel):
    bl_label = "Area Types"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        pg = context.scene.navjump_agents
        row = layout.row()
        row.template_list("NAVJUMP_UL_areas", "", pg, "areas", pg, "active_area", rows=3)
        col = row.column(align=True)
        col.operator("navjump.area_add", text="", icon='ADD')
        col.operator("navjump.area_remove", text="", icon='REMOVE')


class NAVJUMP_PT_object_nav(_Sidebar, Panel):
    bl_label = "Object Navigation"

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        return obj is not None and obj.type in {'MESH', 'EMPTY', 'CURVE', 'SURFACE', 'FONT',
                                                'META'}

    def draw(self, context):
        layout = self.layout
        obj = context.active_object
        s = obj.navjump_nav
        layout.use_property_split = True
        layout.use_property_decorate = False
        if obj.type == 'MESH':
            layout.prop(s, "volume")
            if s.volume == 'AREA':
                layout.prop_search(s, "area", context.scene.navjump_agents, "areas")
        if s.volume == 'NONE':
            layout.prop(s, "is_link")
            if s.is_link:
                col = layout.column(align=True)
                if obj.type == 'EMPTY':
                    col.prop(s, "link_end")
                col.prop(s, "link_kind")
                col.prop(s, "link_width")
                col.prop(s, "link_cost")
                col.prop(s, "link_bidirectional")
                col.prop_search(s, "link_area", context.scene.navjump_agents, "areas",
                                text="Area")
            else:
                if obj.type == 'MESH':
                    layout.prop_search(s, "area", context.scene.navjump_agents, "areas")
                layout.prop(s, "no_links")


classes = (NAVJUMP_UL_agents, NAVJUMP_UL_areas, NAVJUMP_UL_area_costs, NAVJUMP_PT_agent_types,
           NAVJUMP_PT_area_types, NAVJUMP_PT_object_nav)

register, unregister = register_classes_factory(classes)
