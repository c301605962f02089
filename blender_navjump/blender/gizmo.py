"""Path-test gizmos: two draggable points snapped onto the navmesh.

``NAVJUMP_GGT_path_test`` shows a move gizmo at ``scene.navjump_overlay.path_start`` and
one at ``path_goal`` while the path test is on. The gizmos write the properties through
:func:`set_end`, which snaps the dragged point onto the nearest polygon the test agent
may use; the properties' update callback recomputes the path (``overlay.refresh_path``),
so dragging, typing coordinates in the panel and scripts all take the same route.

``navjump.path_test_place`` puts both points on the navmesh, far apart on one island,
when they are not set yet.
"""

from __future__ import annotations

import bpy
from bpy.types import GizmoGroup, Operator

from . import overlay, overlay_geometry
from .stub_gaps import register_classes_factory

ENDS = ("path_start", "path_goal")
END_COLORS = {"path_start": overlay_geometry.PATH_START_COLOR,
              "path_goal": overlay_geometry.PATH_GOAL_COLOR}


def get_end(scene, end: str) -> tuple[float, float, float]:
    return tuple(getattr(scene.navjump_overlay, end))


def set_end(scene, end: str, value) -> bool:
    """Store a dragged end point, snapped onto the navmesh. True when it snapped."""
    point, snapped = overlay.snap_to_navmesh(scene, value)
    setattr(scene.navjump_overlay, end, tuple(float(v) for v in point))
    return snapped


def _getter(end):
    def get():
        scene = bpy.context.scene
        try:
            return get_end(scene, end)
        except Exception:  # gizmo callbacks must not raise
            return (0.0, 0.0, 0.0)
    return get


def _setter(end):
    def set_(value):
        try:
            set_end(bpy.context.scene, end, value)
        except Exception as exc:
            overlay._log_once(f"moving the path-test {end} failed: {exc!r}")
    return set_


class NAVJUMP_GGT_path_test(GizmoGroup):
    bl_idname = "NAVJUMP_GGT_path_test"
    bl_label = "NavJump Path Test"
    bl_space_type = 'VIEW_3D'
    bl_region_type = 'WINDOW'
    bl_options = {'3D', 'PERSISTENT', 'SCALE'}

    @classmethod
    def poll(cls, context):
        scene = context.scene
        pg = getattr(scene, "navjump_overlay", None)
        return pg is not None and pg.path_test and pg.show_overlay

    def setup(self, context):
        self.end_gizmos = {}
        for end in ENDS:
            gz = self.gizmos.new("GIZMO_GT_move_3d")
            gz.target_set_handler("offset", get=_getter(end), set=_setter(end))
            gz.draw_options = {'FILL', 'ALIGN_VIEW'}  # type: ignore[attr-defined]  # a move_3d property
            gz.color = END_COLORS[end][:3]
            gz.alpha = 0.7
            gz.color_highlight = (1.0, 1.0, 1.0)
            gz.alpha_highlight = 1.0
            gz.scale_basis = 0.25
            gz.use_draw_modal = True
            self.end_gizmos[end] = gz


class NAVJUMP_OT_path_test_place(Operator):
    """Put the path-test start and goal on the navmesh, far apart on one island"""

    bl_idname = "navjump.path_test_place"
    bl_label = "Place Test Points"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        if context.scene is None or not overlay.bake_state(context.scene).ok:
            cls.poll_message_set("Bake first: the points are placed on the navmesh")
            return False
        return True

    def execute(self, context):
        scene = context.scene
        state = overlay.bake_state(scene)
        try:
            agent = overlay._agent(scene.navjump_overlay)
        except ValueError as exc:
            self.report({'ERROR'}, str(exc))
            return {'CANCELLED'}
        from ..core.query import far_apart_points

        pair = far_apart_points(state.navmesh, agent)
        if pair is None:
            self.report({'ERROR'}, "The navmesh has no polygons")
            return {'CANCELLED'}
        pg = scene.navjump_overlay
        pg.path_start = tuple(float(v) for v in pair[0])
        pg.path_goal = tuple(float(v) for v in pair[1])
        pg.path_test = True
        return {'FINISHED'}


classes = (NAVJUMP_GGT_path_test, NAVJUMP_OT_path_test_place)


register, unregister = register_classes_factory(classes)
