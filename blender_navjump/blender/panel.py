"""Sidebar panels (3D View > Sidebar > NavJump) and the object role panel."""

from typing import TYPE_CHECKING

from bpy.types import Panel, UILayout

from . import props, storage
from .ops_presets import NAVJUMP_MT_agent_presets
from .stub_gaps import register_classes_factory

if TYPE_CHECKING:  # names the stubs give Blender's enums (they exist in no running Blender)
    from bpy.stub_internal.rna_enums import RegionTypeItems, SpaceTypeItems


class _SidebarPanel:
    if TYPE_CHECKING:  # not at run time: Blender reads the annotations of its classes
        layout: UILayout  # set before draw() is called; the stubs allow None
        bl_space_type: SpaceTypeItems
        bl_region_type: RegionTypeItems
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "NavJump"


class NAVJUMP_PT_main(_SidebarPanel, Panel):
    bl_label = "NavJump"

    @classmethod
    def poll(cls, context):
        return context.scene is not None

    def draw(self, context):
        layout = self.layout
        settings = context.scene.navjump
        layout.use_property_split = True
        layout.use_property_decorate = False
        layout.prop(settings, "source")
        if settings.source == 'COLLECTION':
            layout.prop(settings, "source_collection")
        layout.prop(settings, "bounds_object")

        row = layout.row(align=True)
        row.menu(NAVJUMP_MT_agent_presets.__name__, text=NAVJUMP_MT_agent_presets.bl_label)
        row.operator("navjump.agent_preset_add", text="", icon='ADD')
        row.operator("navjump.agent_preset_add", text="", icon='REMOVE').remove_active = True

        obj = context.active_object
        if obj is not None and obj.type in {'MESH', 'CURVE', 'SURFACE', 'FONT', 'META',
                                            'EMPTY'}:
            layout.prop(obj, "navjump_role", text=f"{obj.name} Role")

        row = layout.row(align=True)
        row.scale_y = 1.4
        row.operator("navjump.bake", icon='MOD_PHYSICS')
        row.operator("navjump.clear", text="", icon='TRASH')


class NAVJUMP_PT_agent(_SidebarPanel, Panel):
    bl_label = "Agent"
    bl_parent_id = "NAVJUMP_PT_main"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        settings = context.scene.navjump
        col = layout.column(align=True)
        col.prop(settings, "agent_radius")
        if not settings.multi_stance:
            col.prop(settings, "agent_height")
        col.prop(settings, "agent_max_climb")
        col.prop(settings, "agent_max_slope")

        layout.prop(settings, "multi_stance")
        if settings.multi_stance:
            col = layout.column(align=True)
            for stance in ("stand", "crouch", "prone"):
                row = col.row(align=True)
                row.prop(settings, f"{stance}_enabled", text="")
                sub = row.row(align=True)
                sub.active = getattr(settings, f"{stance}_enabled")
                sub.prop(settings, f"{stance}_height")


class NAVJUMP_PT_links(_SidebarPanel, Panel):
    bl_label = "Jump Links"
    bl_parent_id = "NAVJUMP_PT_main"

    def draw_header(self, context):
        self.layout.prop(context.scene.navjump, "links_enabled", text="")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        settings = context.scene.navjump
        layout.active = settings.links_enabled
        col = layout.column(align=True)
        col.prop(settings, "max_jump_height")
        col.prop(settings, "max_jump_distance")
        col.prop(settings, "max_drop_height")
        col = layout.column(heading="Kinds", align=True)
        col.prop(settings, "drop_enabled")
        col.prop(settings, "jump_across_enabled")
        col.prop(settings, "jump_up_enabled")


class NAVJUMP_PT_advanced(_SidebarPanel, Panel):
    bl_label = "Advanced"
    bl_parent_id = "NAVJUMP_PT_main"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        settings = context.scene.navjump

        layout.prop(settings, "auto_cell_size")
        col = layout.column(align=True)
        if settings.auto_cell_size:
            cs, ch = props.effective_voxel_size(settings)
            col.label(text=f"Cell Size {cs:.3g} m, Cell Height {ch:.3g} m")
        else:
            col.prop(settings, "cell_size")
            col.prop(settings, "cell_height")

        col = layout.column(align=True)
        col.prop(settings, "partition")
        col.prop(settings, "region_min_size")
        col.prop(settings, "region_merge_size")
        col = layout.column(align=True)
        col.prop(settings, "edge_max_len")
        col.prop(settings, "edge_max_error")
        col.prop(settings, "verts_per_poly")
        col = layout.column(align=True)
        col.prop(settings, "detail_sample_dist")
        col.prop(settings, "detail_sample_max_error")
        col = layout.column(heading="Filter", align=True)
        col.prop(settings, "filter_low_hanging_obstacles")
        col.prop(settings, "filter_ledge_spans")
        col.prop(settings, "filter_low_height_spans")

        col = layout.column(align=True)
        col.active = settings.links_enabled
        col.prop(settings, "gravity")
        col.prop(settings, "link_sample_step")
        col.prop(settings, "min_link_width")
        col.prop(settings, "link_search_angle")
        col = layout.column(heading="Link Costs", align=True)
        col.active = settings.links_enabled
        col.prop(settings, "cost_drop")
        col.prop(settings, "cost_jump_across")
        col.prop(settings, "cost_jump_up")
        col = layout.column(heading="Climbing", align=True)
        col.prop(settings, "climbing_enabled")
        col.prop(settings, "max_climb_height")
        col.prop(settings, "auto_ledges")
        layout.prop(settings, "memory_limit_gb")


class NAVJUMP_PT_result(_SidebarPanel, Panel):
    bl_label = "Result"
    bl_parent_id = "NAVJUMP_PT_main"

    @classmethod
    def poll(cls, context):
        return storage.has_result(context.scene)

    def draw(self, context):
        layout = self.layout
        report = storage.read_report(context.scene)
        if report is None:
            layout.label(text="No bake metadata found")
            return
        summary = report.get("summary") or {}
        gather = report.get("gather") or {}
        col = layout.column(align=True)
        col.label(text=f"Input: {gather.get('triangles', 0):,} triangles, "
                       f"{gather.get('objects', 0)} objects")
        col.label(text=f"Polygons: {summary.get('polygons', 0):,}")
        by_stance = summary.get("polygons_by_stance", {})
        for name, area in (summary.get("area_by_stance_m2") or {}).items():
            col.label(text=f"  {name.title()}: {area:,.1f} m\u00b2 "
                           f"({by_stance.get(name, 0)} polygons)")
        col = layout.column(align=True)
        col.label(text=f"Links: {summary.get('links', 0)}")
        for name, count in (summary.get("links_by_kind") or {}).items():
            col.label(text=f"  {name.replace('_', ' ').title()}: {count}")
        timings = summary.get("timings_ms") or {}
        if timings:
            box = layout.box()
            col = box.column(align=True)
            col.label(text=f"Gather: {gather.get('seconds', 0.0) * 1000:.0f} ms")
            for name, ms in timings.items():
                col.label(text=f"{name.title()}: {ms:.0f} ms")
        for warning in report.get("warnings") or []:
            layout.label(text=warning, icon='ERROR')
        layout.operator("navjump.export", text="Export...", icon='EXPORT')


class NAVJUMP_PT_object(Panel):
    if TYPE_CHECKING:
        layout: UILayout  # set before draw() is called; the stubs allow None
    bl_label = "NavJump"
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "object"
    bl_options = {'DEFAULT_CLOSED'}

    @classmethod
    def poll(cls, context):
        return context.object is not None

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(context.object, "navjump_role", text="Role")


classes = (NAVJUMP_PT_main, NAVJUMP_PT_agent, NAVJUMP_PT_links, NAVJUMP_PT_advanced,
           NAVJUMP_PT_result, NAVJUMP_PT_object)


register, unregister = register_classes_factory(classes)
