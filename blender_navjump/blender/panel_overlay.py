"""Sidebar sub-panels under NavJump: overlay layers, path test, auto re-bake.

Each panel says what is wrong in words (no bake, unreadable bake, end off the navmesh,
no stance for the test agent...) instead of silently drawing nothing.
"""

from typing import TYPE_CHECKING

import bpy
from bpy.types import Panel, UILayout

from ..core.kinds import LINK_KINDS
from . import live_rebake, overlay

if TYPE_CHECKING:  # names the stubs give Blender's enums (they exist in no running Blender)
    from bpy.stub_internal.rna_enums import RegionTypeItems, SpaceTypeItems

PARENT = "NAVJUMP_PT_main"


class _SubPanel:
    if TYPE_CHECKING:  # not at run time: Blender reads the annotations of its classes
        layout: UILayout  # set before draw() is called; the stubs allow None
        bl_space_type: SpaceTypeItems
        bl_region_type: RegionTypeItems
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "NavJump"
    bl_parent_id = PARENT


def _messages(layout, errors, warnings):
    for text in errors:
        layout.label(text=text, icon='ERROR')
    for text in warnings:
        layout.label(text=text, icon='INFO')


def _toggle_row(layout, pg, name, legend=None, active=True):
    row = layout.row(align=True)
    row.active = active
    if legend is not None:
        swatch = row.row(align=True)
        swatch.ui_units_x = 1.2
        swatch.prop(pg, legend, text="")
    row.prop(pg, name)
    return row


class NAVJUMP_PT_overlay(_SubPanel, Panel):
    bl_label = "Overlay"

    def draw_header(self, context):
        self.layout.prop(context.scene.navjump_overlay, "show_overlay", text="")

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        pg = scene.navjump_overlay
        state = overlay.bake_state(scene)
        _messages(layout, state.errors, state.warnings)
        layout.active = pg.show_overlay

        col = layout.column(align=True)
        col.label(text="Stances")
        for name in ("stand", "crouch", "prone"):
            _toggle_row(col, pg, f"show_{name}", f"legend_{name}")
        col.prop(pg, "show_navmesh")
        row = col.row(align=True)
        row.active = state.navmesh is not None and state.navmesh.tiled
        row.prop(pg, "show_tiles")

        col = layout.column(align=True)
        col.label(text="Links")
        for name in LINK_KINDS:
            _toggle_row(col, pg, f"show_{name}", f"legend_{name}")
        row = col.row(align=True)
        swatch = row.row(align=True)
        swatch.ui_units_x = 1.2
        swatch.prop(pg, "legend_unattached", text="")
        row.label(text="Link end on no polygon")

        col = layout.column(align=True)
        _toggle_row(col, pg, "show_path", "legend_path", active=pg.path_test)
        row = col.row(align=True)
        row.active = pg.path_test
        swatch = row.row(align=True)
        swatch.ui_units_x = 1.2
        swatch.prop(pg, "legend_path_jump", text="")
        row.label(text="Path in the air")
        layout.prop(pg, "xray")
        _debug_section(layout, scene, pg, state)
        nm = state.navmesh
        if nm is not None:
            layout.label(text=f"{nm.polygon_count:,} polygons, {nm.link_count:,} links "
                              f"(overlay built in {state.build_ms:.0f} ms)")


def _debug_section(layout, scene, pg, state):
    """Debug layer toggles, the Debug Data bake setting and what is missing."""
    from .overlay_debug import BAKE_DEBUG_LAYERS, DEBUG_LAYERS

    col = layout.column(align=True)
    col.label(text="Debug")
    _toggle_row(col, pg, "show_debug_voxels", "legend_unwalkable")
    for name in DEBUG_LAYERS[1:]:
        _toggle_row(col, pg, f"show_{name}")
    col.prop(scene.navjump, "keep_debug")
    wanted = [n for n in BAKE_DEBUG_LAYERS if getattr(pg, f"show_{n}")]
    if state.debug_error:
        col.label(text=state.debug_error, icon='ERROR')
    elif wanted and state.ok and state.debug is None:
        col.label(text="Turn on Debug Data and bake again to see", icon='INFO')
        col.label(text="voxel tops, regions, contours, refused links")
    if state.debug_ms:
        col.label(text="Debug layers built in "
                       f"{sum(state.debug_ms.values()):.0f} ms")


def _readout(layout, path):
    box = layout.box()
    col = box.column(align=True)
    r = path.result
    if r is not None:
        status = "Path found" if r.found else "Partial path"
        col.label(text=status, icon='CHECKMARK' if r.found else 'ERROR')
        col.label(text=f"Length: {r.length:.2f} m   Cost: {r.cost:.2f}")
        c = path.counts
        col.label(text=f"Jumps: {c.get('jumps', 0)}   Drops: {c.get('drops', 0)}   "
                       f"Stance changes: {c.get('stance_changes', 0)}")
        if c.get("climb_moves"):
            col.label(text=f"Climbing: {c['climb_moves']} moves ("
                           + ", ".join(f"{k.replace('_', ' ')} {v}"
                                       for k, v in c.get("climb_by_move", {}).items()) + ")")
        col.label(text=f"Query: {path.query_ms:.2f} ms")
    if path.message:
        for line in _wrap(path.message):
            col.label(text=line, icon='NONE' if r is not None else 'ERROR')


def _wrap(text: str, width: int = 48) -> list[str]:
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    if line:
        lines.append(line)
    return lines


class NAVJUMP_PT_path_test(_SubPanel, Panel):
    bl_label = "Path Test"

    def draw_header(self, context):
        self.layout.prop(context.scene.navjump_overlay, "path_test", text="")

    def draw(self, context):
        layout = self.layout
        scene = context.scene
        pg = scene.navjump_overlay
        state = overlay.bake_state(scene)
        if not state.ok:
            layout.label(text="Bake first: the path test runs on the baked navmesh",
                         icon='INFO')
            return
        layout.active = pg.path_test
        layout.operator("navjump.path_test_place", icon='TRACKING')
        col = layout.column(align=True)
        col.prop(pg, "path_start")
        col = layout.column(align=True)
        col.prop(pg, "path_goal")

        layout.label(text="Test agent")
        row = layout.row(align=True)
        for name in ("stand", "crouch", "prone"):
            row.prop(pg, f"test_{name}", toggle=True)
        row = layout.row(align=True)
        for name in LINK_KINDS:
            row.prop(pg, f"test_{name}", toggle=True)
        if pg.path_test:
            _readout(layout, overlay.path_state(scene))
            if not pg.show_overlay or not pg.show_path:
                layout.label(text="The path is hidden: turn on Overlay and Path",
                             icon='HIDE_ON')


class NAVJUMP_PT_live_rebake(_SubPanel, Panel):
    bl_label = "Auto Re-bake"
    bl_options = {'DEFAULT_CLOSED'}

    def draw_header(self, context):
        self.layout.prop(context.scene.navjump_overlay, "auto_rebake", text="")

    def draw(self, context):
        layout = self.layout
        pg = context.scene.navjump_overlay
        layout.active = pg.auto_rebake
        col = layout.column(align=True)
        col.label(text="Bakes again when a setting or the scene's")
        col.label(text="geometry changes (beside the UI; a newer")
        col.label(text="change cancels the running bake)")
        status = live_rebake.status()
        if status.get("running"):
            layout.label(text=f"Re-baking: {status.get('stage') or 'starting'}", icon='SORTTIME')
        if status.get("error"):
            for line in _wrap(status["error"]):
                layout.label(text=line, icon='ERROR')
        if status.get("pending"):
            layout.label(text="Re-bake pending...", icon='TIME')
        last = status.get("last")
        if last:
            layout.label(text=f"Last: {last['reason']}, bake {last['bake_ms']:.0f} ms, "
                              f"total {last['total_ms']:.0f} ms")


classes = (NAVJUMP_PT_overlay, NAVJUMP_PT_path_test, NAVJUMP_PT_live_rebake)


def register():
    for cls in classes:
        bpy.utils.register_class(cls)


def unregister():
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
