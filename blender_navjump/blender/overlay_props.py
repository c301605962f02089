"""Overlay, path-test and auto re-bake settings (``scene.navjump_overlay``).

Saved with the scene (so the test points survive save and reload) and undoable. The
update callbacks only invalidate caches and ask the viewport to redraw; the work happens
lazily in :mod:`.overlay` (path queries) and :mod:`.live_rebake` (bakes).
"""

import bpy
from bpy.props import BoolProperty, FloatVectorProperty, PointerProperty
from bpy.types import PropertyGroup

from .overlay_debug import UNWALKABLE_COLOR
from .overlay_geometry import (
    LINK_COLORS,
    PATH_COLOR,
    PATH_JUMP_COLOR,
    STANCE_COLORS,
    UNATTACHED_COLOR,
)
from .stub_gaps import register_classes_factory


def _redraw(_self=None, _context=None):
    from . import overlay

    overlay.tag_redraw()


def _path_changed(self, context):
    from . import overlay

    scene = getattr(self, "id_data", None) or getattr(context, "scene", None)
    if scene is not None:
        overlay.refresh_path(scene)
    overlay.tag_redraw()


def _auto_changed(self, context):
    from . import live_rebake

    scene = getattr(self, "id_data", None) or getattr(context, "scene", None)
    live_rebake.auto_toggled(scene, self.auto_rebake)


def _layer(name, description, default=True):
    return BoolProperty(name=name, description=description, default=default, update=_redraw)


def _legend(rgba, name):
    # Read-only swatch (a getter, no setter) showing the overlay's own colour in the panel.
    return FloatVectorProperty(name=name, subtype='COLOR_GAMMA', size=3, min=0.0, max=1.0,
                               get=lambda _self: tuple(rgba[:3]),
                               description=f"Overlay colour of {name.lower()}")


def _capability(name, description):
    return BoolProperty(name=name, description=description, default=True,
                        update=_path_changed)


class NAVJUMP_PG_overlay(PropertyGroup):
    # --- what the viewport overlay shows ---
    show_overlay: _layer("Overlay", "Draw the baked navmesh, links and test path in the "
                                    "3D viewport")
    show_navmesh: _layer("Polygon Edges", "Outline every navmesh polygon (borders thicker)")
    show_stand: _layer("Stand", "Fill polygons where the agent walks upright")
    show_crouch: _layer("Crouch", "Fill polygons the agent must crouch through")
    show_prone: _layer("Prone", "Fill polygons the agent must crawl through")
    show_drop: _layer("Drop", "Draw drop-down links")
    show_jump_across: _layer("Jump Across", "Draw links across gaps")
    show_jump_up: _layer("Jump Up", "Draw links up onto ledges")
    show_custom: _layer("Custom", "Draw hand-placed links")
    show_path: _layer("Path", "Draw the test path between the two path-test points")
    show_tiles: _layer("Tile Borders", "Outline every tile of a tiled bake (Tile Size > 0)",
                       default=False)
    xray: _layer("X-Ray", "Draw the overlay through scene geometry", default=False)
    # --- debug layers (overlay_debug.py; all but polygon ids need the bake's Debug Data) ---
    show_debug_voxels: _layer("Voxel Tops", "Every voxel top of the bake: walkable ones in "
                                            "their stance's colour, the others dark red",
                              default=False)
    show_debug_regions: _layer("Regions", "Walkable voxel tops in one colour per region",
                               default=False)
    show_debug_contours: _layer("Contours", "The simplified outline of every region",
                                default=False)
    show_debug_polygons: _layer("Polygon Ids", "Every navmesh polygon in a colour of its own",
                                default=False)
    show_debug_link_rejects: _layer("Refused Links", "Link candidates the link generator "
                                                     "refused, coloured by the reason: too "
                                                     "high, too far, blocked (a square where), "
                                                     "too narrow, no landing",
                                    default=False)

    # --- legend swatches (read-only) ---
    legend_stand: _legend(STANCE_COLORS["stand"], "Stand")
    legend_crouch: _legend(STANCE_COLORS["crouch"], "Crouch")
    legend_prone: _legend(STANCE_COLORS["prone"], "Prone")
    legend_drop: _legend(LINK_COLORS["drop"], "Drop")
    legend_jump_across: _legend(LINK_COLORS["jump_across"], "Jump Across")
    legend_jump_up: _legend(LINK_COLORS["jump_up"], "Jump Up")
    legend_custom: _legend(LINK_COLORS["custom"], "Custom")
    legend_unattached: _legend(UNATTACHED_COLOR, "Link end on no polygon")
    legend_unwalkable: _legend(UNWALKABLE_COLOR, "Voxel top not walkable")
    legend_path: _legend(PATH_COLOR, "Path")
    legend_path_jump: _legend(PATH_JUMP_COLOR, "Path in the air")

    # --- path test ---
    path_test: BoolProperty(
        name="Path Test", default=False, update=_path_changed,
        description="Show two draggable points in the viewport and the path between them")
    path_start: FloatVectorProperty(
        name="Start", subtype='XYZ', size=3, unit='LENGTH', update=_path_changed,
        description="Where the test path starts (placed on the nearest usable polygon)")
    path_goal: FloatVectorProperty(
        name="Goal", subtype='XYZ', size=3, unit='LENGTH', update=_path_changed,
        description="Where the test path should end")
    test_stand: _capability("Stand", "The test agent may walk upright")
    test_crouch: _capability("Crouch", "The test agent may crouch")
    test_prone: _capability("Prone", "The test agent may crawl")
    test_drop: _capability("Drop", "The test agent may take drop links")
    test_jump_across: _capability("Jump Across", "The test agent may jump across gaps")
    test_jump_up: _capability("Jump Up", "The test agent may jump up ledges")
    test_custom: _capability("Custom", "The test agent may take hand-placed links")

    # --- live re-bake ---
    auto_rebake: BoolProperty(
        name="Auto Re-bake", default=False, update=_auto_changed,
        description="Bake again shortly after a bake setting or the scene geometry changes "
                    "(a newer change cancels a pending bake)")


classes = (NAVJUMP_PG_overlay,)


_register_classes, _unregister_classes = register_classes_factory(classes)


def register():
    _register_classes()
    # an RNA property added at run time (the stubs type PointerProperty -> None)
    bpy.types.Scene.navjump_overlay = PointerProperty(type=NAVJUMP_PG_overlay)  # type: ignore[attr-defined, func-returns-value]


def unregister():
    del bpy.types.Scene.navjump_overlay  # type: ignore[attr-defined]  # added by register()
    _unregister_classes()
