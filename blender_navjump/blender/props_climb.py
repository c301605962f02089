"""Climbing properties: per-object climb settings and the climbing overlay's scene settings.

* Object (Object properties > NavJump > Climbing, :mod:`.panel_climb`):
  ``navjump_climb_custom`` / ``navjump_climb_abilities`` (the abilities this element's
  moves need, instead of its kind's), ``navjump_climb_moves`` (the climb moves that may
  touch it: along, jump, drop, back jump) and ``navjump_climb_links`` (which links to the
  navmesh it gets); ``navjump_find_ledges`` (walkable objects: may its wall tops become
  found ledges, ``auto_ledges``). The role itself is ``navjump_role`` (props.ROLE_ITEMS:
  Ledge, Ladder, Pipe besides Walkable, Obstacle, Ignored).
* Scene (``scene.navjump_climb``): the overlay's climbing layers, their legend swatches
  and the path-test agent's climbing abilities.
"""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatVectorProperty, PointerProperty
from bpy.types import PropertyGroup

from ..core.kinds import (
    CLIMB_ABILITIES,
    CLIMB_EDGE_COLORS,
    CLIMB_ELEMENT_COLORS,
    CLIMB_LINK_COLORS,
    CLIMB_LINK_KINDS,
    CLIMB_MOVE_KINDS,
    CLIMB_NODE_COLOR,
    PATH_CLIMB_COLOR,
)
from .stub_gaps import register_classes_factory

ABILITY_DESCRIPTIONS = {
    "climb": "Hang from ledges and jump or drop between climb elements",
    "ladder": "Climb ladders",
    "pipe": "Climb pipes",
    "shimmy": "Move hand over hand along a ledge",
    "mount": "Climb from a ledge or a ladder top onto the floor above",
    "back_jump": "Jump backwards away from a wall to a ledge behind",
}
ABILITY_ITEMS = tuple((name, name.replace("_", " ").title(), ABILITY_DESCRIPTIONS[name])
                      for name in CLIMB_ABILITIES)
LINK_DESCRIPTIONS = {
    "mount": "Onto the floor level with its nodes (a ledge's top, a ladder's top)",
    "ladder_foot": "From the floor at a ladder's or pipe's foot",
    "hang": "Jump up to (or drop down from) a hanging point from the floor below",
}
LINK_ITEMS = tuple((name, name.replace("_", " ").title(), LINK_DESCRIPTIONS[name])
                   for name in CLIMB_LINK_KINDS)
MOVE_DESCRIPTIONS = {
    "along": "Move along it: shimmy along a ledge (and round an outside corner to the next), "
             "climb a ladder or pipe",
    "jump": "Jump to or from it (another climb element nearby)",
    "drop": "Drop from it onto an element below, or onto it from one above",
    "back_jump": "Jump backwards between it and a parallel ledge behind",
}
MOVE_LABELS = {"along": "Along (Shimmy, Climb)", "jump": "Jump", "drop": "Drop",
               "back_jump": "Back Jump"}
MOVE_ITEMS = tuple((name, MOVE_LABELS[name], MOVE_DESCRIPTIONS[name])
                   for name in CLIMB_MOVE_KINDS)


def _object_changed(self, context):
    # a per-object climbing setting changed: Auto re-bake (when on) bakes again
    from . import live_rebake

    live_rebake.object_settings_changed()
    for scene in bpy.data.scenes:
        pg = getattr(scene, "navjump_overlay", None)
        if pg is not None and pg.auto_rebake and self.name in scene.objects:
            live_rebake.schedule(scene, f"{self.name} climbing settings changed")


def _redraw(_self=None, _context=None):
    from . import overlay

    overlay.tag_redraw()


def _path_changed(self, context):
    from . import overlay

    scene = getattr(self, "id_data", None) or getattr(context, "scene", None)
    if scene is not None:
        overlay.refresh_path(scene)
    overlay.tag_redraw()


def _layer(name, description, default=True):
    return BoolProperty(name=name, description=description, default=default, update=_redraw)


def _legend(rgba, name):
    return FloatVectorProperty(name=name, subtype='COLOR_GAMMA', size=3, min=0.0, max=1.0,
                               get=lambda _self: tuple(rgba[:3]),
                               description=f"Overlay colour of {name.lower()}")


class NAVJUMP_PG_climb(PropertyGroup):
    # --- overlay layers (overlay_climb.CLIMB_LAYERS) ---
    show_climb_elements: _layer("Elements", "Draw ledges, ladders and pipes")
    show_climb_nodes: _layer("Nodes", "Draw the climb graph's nodes")
    show_climb_edges: _layer("Jumps and Drops", "Draw the climb graph's jumps, drops, "
                                                "back jumps and corners between elements")
    show_climb_links: _layer("Ground Links", "Draw the links between the climb graph and "
                                             "the navmesh (mount, ladder foot, hang)")
    # --- the path-test agent ---
    test_abilities: EnumProperty(
        name="Climbing", items=ABILITY_ITEMS, options={'ENUM_FLAG'},
        default=set(CLIMB_ABILITIES), update=_path_changed,
        description="Climbing abilities of the path-test agent (none: it never climbs)")
    # --- legend swatches (read-only) ---
    legend_ledge: _legend(CLIMB_ELEMENT_COLORS["ledge"], "Ledge")
    legend_ladder: _legend(CLIMB_ELEMENT_COLORS["ladder"], "Ladder")
    legend_pipe: _legend(CLIMB_ELEMENT_COLORS["pipe"], "Pipe")
    legend_node: _legend(CLIMB_NODE_COLOR, "Climb node")
    legend_jump: _legend(CLIMB_EDGE_COLORS["jump"], "Climb jump")
    legend_drop: _legend(CLIMB_EDGE_COLORS["drop"], "Climb drop")
    legend_back_jump: _legend(CLIMB_EDGE_COLORS["back_jump"], "Back jump")
    legend_corner: _legend(CLIMB_EDGE_COLORS["corner"], "Climb corner")
    legend_mount: _legend(CLIMB_LINK_COLORS["mount"], "Mount")
    legend_ladder_foot: _legend(CLIMB_LINK_COLORS["ladder_foot"], "Ladder foot")
    legend_hang: _legend(CLIMB_LINK_COLORS["hang"], "Hang")
    legend_path_climb: _legend(PATH_CLIMB_COLOR, "Path climbing")


classes = (NAVJUMP_PG_climb,)

_register_classes, _unregister_classes = register_classes_factory(classes)

# (attribute, property factory) of the per-object properties
_OBJECT_PROPS = (
    ("navjump_climb_custom", lambda: BoolProperty(
        name="Custom Abilities", default=False, update=_object_changed,
        description="This element's moves need the abilities below instead of its kind's "
                    "(ledge: climb and shimmy; ladder: ladder; pipe: pipe)")),
    ("navjump_climb_abilities", lambda: EnumProperty(
        name="Abilities", items=ABILITY_ITEMS, options={'ENUM_FLAG'},
        default={"climb", "shimmy"}, update=_object_changed,
        description="Abilities an agent needs to move along this element; all but Shimmy "
                    "are needed for every jump or drop to or from it too")),
    ("navjump_climb_moves", lambda: EnumProperty(
        name="Moves", items=MOVE_ITEMS, options={'ENUM_FLAG'},
        default=set(CLIMB_MOVE_KINDS), update=_object_changed,
        description="Which climb moves this element allows; a jump, drop or back jump "
                    "between two elements needs both to allow it")),
    ("navjump_find_ledges", lambda: BoolProperty(
        name="Find Ledges", default=True, update=_object_changed,
        description="With climbing and Find Ledges on in the bake settings, the top edges of "
                    "this object's walls of the right height become ledges")),
    ("navjump_climb_links", lambda: EnumProperty(
        name="Ground Links", items=LINK_ITEMS, options={'ENUM_FLAG'},
        default=set(CLIMB_LINK_KINDS), update=_object_changed,
        description="Which links join this element to the navmesh")),
)


def register():
    _register_classes()
    # RNA properties added at run time (the stubs type the property functions -> None)
    bpy.types.Scene.navjump_climb = PointerProperty(type=NAVJUMP_PG_climb)  # type: ignore[attr-defined, func-returns-value]
    for name, make in _OBJECT_PROPS:
        setattr(bpy.types.Object, name, make())


def unregister():
    for name, _make in reversed(_OBJECT_PROPS):
        if hasattr(bpy.types.Object, name):
            delattr(bpy.types.Object, name)
    del bpy.types.Scene.navjump_climb  # type: ignore[attr-defined]  # added by register()
    _unregister_classes()
