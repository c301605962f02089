"""Climbing panels: an object's climb settings (Object properties > NavJump > Climbing),
the climb counts of the stored bake (sidebar Result > Climbing) and the climbing overlay
layers, legend and test-agent abilities (sidebar Overlay > Climbing)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpy.types import Panel

from . import storage
from .climb_items import climb_kind
from .stub_gaps import register_classes_factory

if TYPE_CHECKING:
    from bpy.types import UILayout


class NAVJUMP_PT_object_climb(Panel):
    if TYPE_CHECKING:
        layout: UILayout
    bl_label = "Climbing"
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "object"
    bl_parent_id = "NAVJUMP_PT_object"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and climb_kind(getattr(obj, "navjump_role", 'WALKABLE'),
                                              obj.name) is not None

    def draw(self, context):
        from ..core.kinds import CLIMB_ELEMENT_KINDS

        layout = self.layout
        obj = context.object
        kind = climb_kind(obj.navjump_role, obj.name)
        if kind is None:  # poll() let only climb objects through
            return
        how = "role" if obj.navjump_role not in ('WALKABLE', 'OBSTACLE') else "name"
        layout.label(text=f"{CLIMB_ELEMENT_KINDS[kind].title()} (from its {how}); "
                          f"not walkable", icon='INFO')
        if not context.scene.navjump.climbing_enabled:
            layout.label(text="Climbing is off in the bake settings", icon='ERROR')
        layout.use_property_split = True
        layout.prop(obj, "navjump_climb_custom")
        col = layout.column(align=True)
        col.active = obj.navjump_climb_custom
        col.prop(obj, "navjump_climb_abilities")
        layout.prop(obj, "navjump_climb_moves")
        layout.prop(obj, "navjump_climb_links")


def _climb_counts(scene) -> dict:
    report = storage.read_report(scene) or {}
    return (report.get("summary") or {}).get("climb") or {}


class NAVJUMP_PT_object_ledges(Panel):
    """A walkable object's switch for found ledges (``core/ledges.py``)."""
    if TYPE_CHECKING:
        layout: UILayout
    bl_label = "Found Ledges"
    bl_space_type = 'PROPERTIES'
    bl_region_type = 'WINDOW'
    bl_context = "object"
    bl_parent_id = "NAVJUMP_PT_object"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return (obj is not None and obj.type == 'MESH'
                and climb_kind(getattr(obj, "navjump_role", 'WALKABLE'), obj.name) is None)

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(context.object, "navjump_find_ledges")
        s = context.scene.navjump
        if not (s.climbing_enabled and s.auto_ledges):
            layout.label(text="Climbing or Find Ledges is off in the bake settings",
                         icon='INFO')


class NAVJUMP_PT_result_climb(Panel):
    if TYPE_CHECKING:
        layout: UILayout
    bl_label = "Climbing"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "NavJump"
    bl_parent_id = "NAVJUMP_PT_result"

    @classmethod
    def poll(cls, context):
        return storage.has_result(context.scene) and bool(_climb_counts(context.scene))

    def draw(self, context):
        counts = _climb_counts(context.scene)
        col = self.layout.column(align=True)
        for key in ("elements", "nodes", "edges", "links"):
            col.label(text=f"{key.title()}: {counts.get(key, 0):,}")


class NAVJUMP_PT_overlay_climb(Panel):
    if TYPE_CHECKING:
        layout: UILayout
    bl_label = "Climbing"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "NavJump"
    bl_parent_id = "NAVJUMP_PT_overlay"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        pg = context.scene.navjump_climb
        layout = self.layout
        for toggle, swatches in (
                ("show_climb_elements", ("legend_ledge", "legend_ladder", "legend_pipe")),
                ("show_climb_nodes", ("legend_node",)),
                ("show_climb_edges", ("legend_jump", "legend_drop", "legend_back_jump",
                                       "legend_corner")),
                ("show_climb_links", ("legend_mount", "legend_ladder_foot", "legend_hang"))):
            row = layout.row(align=True)
            row.prop(pg, toggle)
            for name in swatches:
                row.prop(pg, name, text="")
        row = layout.row(align=True)
        row.label(text="Path climbing")
        row.prop(pg, "legend_path_climb", text="")
        col = layout.column(heading="Test Agent Climbing", align=True)
        col.prop(pg, "test_abilities")


classes = (NAVJUMP_PT_object_climb, NAVJUMP_PT_object_ledges, NAVJUMP_PT_result_climb,
           NAVJUMP_PT_overlay_climb)

register, unregister = register_classes_factory(classes)
