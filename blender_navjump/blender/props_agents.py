"""Agent types, area types and per-object navigation settings (issue 14).

* ``scene.navjump_agents`` (:class:`NAVJUMP_PG_agents`): the scene's agent list (each with
  its own radius, heights, climb, slope and jump settings and its area costs), the area
  types, and which baked agent the overlay, the path test and the export show.
* ``object.navjump_nav`` (:class:`NAVJUMP_PG_object_nav`): marks an object as a modifier
  volume (area or "no generated links"), as a hand-placed link (a mesh with one edge, or
  an empty linked to a second empty), or switches off generated links on it.

An empty agent list bakes the scene's sliders as one agent (as before).
"""

from __future__ import annotations

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)
from bpy.types import PropertyGroup

from ..core.kinds import LINK_KINDS
from ..core.settings import BakeSettings
from .agents_model import AGENT_FIELDS
from .stub_gaps import register_classes_factory

_D = BakeSettings()


def nav_settings_changed(owner, reason: str) -> None:
    """Auto re-bake (where it is on) after an agent, area or per-object navigation setting
    changed: ``owner`` is the Scene or Object the setting belongs to."""
    from . import live_rebake

    live_rebake.object_settings_changed()  # area types checked by the volumes, too
    if isinstance(owner, bpy.types.Scene):
        scenes = [owner]
    else:
        scenes = [sc for sc in bpy.data.scenes if owner.name in sc.objects]
    for scene in scenes:
        pg = getattr(scene, "navjump_overlay", None)
        if pg is not None and pg.auto_rebake:
            live_rebake.schedule(scene, reason)


def _changed(self, _context):
    owner = self.id_data
    what = "agent or area types" if isinstance(owner, bpy.types.Scene) else \
        f"{owner.name} navigation settings"
    nav_settings_changed(owner, f"{what} changed")


def _length(name, default, description, soft_max=10.0, hard_max=100.0):
    return FloatProperty(name=name, description=description, default=default, min=0.0,
                         max=hard_max, soft_max=soft_max, unit='LENGTH', subtype='DISTANCE',
                         precision=3, step=1, update=_changed)


class NAVJUMP_PG_agent_area_cost(PropertyGroup):
    area: StringProperty(name="Area", description="Area type this cost is for", update=_changed)
    cost: FloatProperty(name="Cost", default=1.0, min=0.001, max=1.0e6, soft_max=100.0,
                        description="Walking-cost multiplier of this area for the agent",
                        update=_changed)
    not_walkable: BoolProperty(name="Not Walkable", default=False,
                               description="The agent never enters this area", update=_changed)


class NAVJUMP_PG_agent(PropertyGroup):
    # ``name`` (the PropertyGroup's own) names the agent and its export files
    agent_radius: _length("Radius", 0.4, "Agent radius", soft_max=5.0, hard_max=50.0)
    agent_height: _length("Height", 1.8, "Clearance the agent needs (single stance)")
    multi_stance: BoolProperty(name="Stances", default=True,
                               description="Stand / crouch / prone by free height", update=_changed)
    stand_height: _length("Stand", _D.stand_height, "Clearance to walk upright")
    crouch_height: _length("Crouch", _D.crouch_height, "Clearance to crouch")
    prone_height: _length("Prone", _D.prone_height, "Clearance to crawl")
    stand_enabled: BoolProperty(name="Stand", default=True, update=_changed)
    crouch_enabled: BoolProperty(name="Crouch", default=True, update=_changed)
    prone_enabled: BoolProperty(name="Prone", default=True, update=_changed)
    agent_max_climb: _length("Max Climb", 0.4, "Tallest step walked up", soft_max=5.0)
    agent_max_slope: FloatProperty(name="Max Slope", default=45.0, min=0.0, max=89.9,
                                   description="Steepest walkable slope, in degrees",
                                   update=_changed)
    links_enabled: BoolProperty(name="Jump Links", default=True, update=_changed)
    max_jump_height: _length("Jump Height", _D.max_jump_height, "Highest ledge jumped up",
                             hard_max=20.0)
    max_jump_distance: _length("Jump Distance", _D.max_jump_distance, "Widest gap jumped",
                               hard_max=30.0)
    max_drop_height: _length("Drop Height", _D.max_drop_height, "Deepest drop survived",
                             soft_max=20.0)
    area_costs: CollectionProperty(type=NAVJUMP_PG_agent_area_cost)
    active_cost: IntProperty(default=0)


class NAVJUMP_PG_area(PropertyGroup):
    # ``name``: the area's name (in the navmesh's area table and the exports)
    cost: FloatProperty(name="Default Cost", default=1.0, min=0.001, max=1.0e6,
                        soft_max=100.0,
                        description="Walking-cost multiplier for agents without their own",
                        update=_changed)


def _shown_changed(self, context):
    """The result objects (and with them the overlay and the path test) show the agent
    chosen here."""
    from . import overlay, storage

    scene = self.id_data
    if isinstance(scene, bpy.types.Scene):
        storage.show_agent(scene)
    overlay.tag_redraw()


class NAVJUMP_PG_agents(PropertyGroup):
    agents: CollectionProperty(type=NAVJUMP_PG_agent)
    active_agent: IntProperty(name="Active Agent", default=0)
    shown: StringProperty(
        name="Show Agent", default="", update=_shown_changed,
        description="The baked agent the result objects, the overlay, the path test and "
                    "the export show (empty: the first)")
    areas: CollectionProperty(type=NAVJUMP_PG_area)
    active_area: IntProperty(name="Active Area", default=0)


VOLUME_ITEMS = (
    ('NONE', "None", "Not a modifier volume"),
    ('AREA', "Area", "Polygons inside this closed mesh get its area type"),
    ('NOLINKS', "No Links", "Generated links with an end inside this closed mesh are "
                            "removed"),
)
LINK_KIND_ITEMS = tuple((k, k.replace("_", " ").title(), f"Link kind {k}")
                        for k in LINK_KINDS)


def _link_end_poll(_self, obj) -> bool:
    return obj.type == 'EMPTY'


class NAVJUMP_PG_object_nav(PropertyGroup):
    volume: EnumProperty(name="Volume", items=VOLUME_ITEMS, default='NONE',
                         description="Use this mesh as a modifier volume (it is not baked)",
                         update=_changed)
    area: StringProperty(name="Area", default="",
                         description="Area type the volume gives the navmesh inside it; on a "
                                     "walkable object, the area of the navmesh on its faces",
                                     update=_changed)
    is_link: BoolProperty(
        name="Link", default=False,
        description="A hand-placed link (not baked): a mesh with one edge (from its first "
                    "to its second vertex), or an empty to the 'Link End' empty", update=_changed)
    link_end: PointerProperty(name="Link End", type=bpy.types.Object, poll=_link_end_poll,
                              description="Where the link of this empty lands", update=_changed)
    link_width: _length("Width", 0.0, "Width of the link's start and end (0: a point)")
    link_bidirectional: BoolProperty(name="Both Ways", default=True, update=_changed)
    link_kind: EnumProperty(name="Kind", items=LINK_KIND_ITEMS, default="custom", update=_changed)
    link_cost: FloatProperty(name="Cost", default=-1.0, min=-1.0, max=1.0e6,
                             description="Cost of taking the link (-1: its length)",
                             update=_changed)
    link_area: StringProperty(
        name="Link Area", default="",
        description="Area type of the link: each agent's cost of it multiplies the link's "
                    "cost; agents for which it is not walkable do not get the link",
                    update=_changed)
    no_links: BoolProperty(
        name="No Generated Links", default=False,
        description="Remove generated links with an end on this object (its bounding box, "
                    "raised by the tallest agent)", update=_changed)


def copy_scene_sliders(agent, settings_pg) -> None:
    """Fill a new agent with the scene's current sliders."""
    for name in AGENT_FIELDS:
        if hasattr(settings_pg, name):
            setattr(agent, name, getattr(settings_pg, name))


classes = (NAVJUMP_PG_agent_area_cost, NAVJUMP_PG_agent, NAVJUMP_PG_area, NAVJUMP_PG_agents,
           NAVJUMP_PG_object_nav)

_register_classes, _unregister_classes = register_classes_factory(classes)


def register():
    _register_classes()
    bpy.types.Scene.navjump_agents = PointerProperty(type=NAVJUMP_PG_agents)  # type: ignore[attr-defined, func-returns-value]
    bpy.types.Object.navjump_nav = PointerProperty(type=NAVJUMP_PG_object_nav)  # type: ignore[attr-defined, func-returns-value]


def unregister():
    del bpy.types.Object.navjump_nav  # type: ignore[attr-defined]
    del bpy.types.Scene.navjump_agents  # type: ignore[attr-defined]
    _unregister_classes()
