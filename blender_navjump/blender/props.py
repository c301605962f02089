"""Scene bake settings (``scene.navjump``) and the per-object role (``object.navjump_role``).

Property names equal :class:`core.settings.BakeSettings` field names, so
:func:`to_bake_settings` maps them one to one; the only UI-side addition is the "auto"
voxel size derived from the agent radius.
"""

from dataclasses import fields
from typing import Any

import bpy
from bpy.props import (
    BoolProperty,
    EnumProperty,
    FloatProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)
from bpy.types import PropertyGroup

from ..core.settings import BakeSettings
from ..export import FORMAT_SUFFIXES, FORMATS
from .climb_items import CLIMB_ROLE_ITEMS
from .stub_gaps import register_classes_factory

ROLE_ITEMS = (
    ('WALKABLE', "Walkable", "Agents walk on this object and it blocks them"),
    ('OBSTACLE', "Obstacle", "Blocks agents but is never walked on"),
    ('IGNORED', "Ignored", "Left out of the bake"),
) + CLIMB_ROLE_ITEMS  # ledge, ladder, pipe (climb_items.py)

SOURCE_ITEMS = (
    ('SCENE', "Visible Objects", "Bake every visible object of the view layer"),
    ('COLLECTION', "Collection", "Bake the objects of one collection (and its children)"),
)

PARTITION_ITEMS = (
    ('WATERSHED', "Watershed", "Best polygons for open areas; slowest (Recast's default)"),
    ('MONOTONE', "Monotone", "Fastest; can give long thin polygons"),
)

# Smallest auto cell size: a zero-radius agent would otherwise give a zero grid step.
MIN_AUTO_CELL_SIZE = 0.05
_DEFAULTS = BakeSettings()


def auto_voxel_size(agent_radius: float) -> tuple[float, float]:
    """Recast's guidance: cell size half the agent radius, cell height half the cell size."""
    cs = max(float(agent_radius) / 2.0, MIN_AUTO_CELL_SIZE)
    return _tidy(cs), _tidy(cs / 2.0)


def _tidy(x: float) -> float:
    # Blender stores floats as float32: 0.6 comes back as 0.6000000238. Six significant
    # digits give back what the user typed.
    return float(f"{float(x):.6g}")


def _length(name, default, description, soft_max=10.0, hard_max=100.0, hard_min=0.0):
    return FloatProperty(name=name, description=description, default=default, min=hard_min,
                         max=hard_max, soft_min=max(hard_min, 0.0), soft_max=soft_max,
                         unit='LENGTH', subtype='DISTANCE', precision=3, step=1)


def _cost(name, default):
    return FloatProperty(name=name, default=default, min=0.0, max=1000.0, soft_max=10.0,
                         description=f"Path cost multiplier of {name.lower()} links "
                                     f"(per metre travelled)")


def _bounds_poll(_self, obj) -> bool:
    from .gather import is_result_object

    return obj.type in {'MESH', 'EMPTY'} and not is_result_object(obj)


EXPORT_FORMAT_LABELS = {"json": "NavJump JSON", "obj": "OBJ", "gltf": "glTF binary",
                        "detour": "Detour (MSET)"}
# One flag per format the command line writes (export.FORMATS), in its order.
EXPORT_FORMAT_ITEMS = tuple(
    (name, EXPORT_FORMAT_LABELS.get(name, name),
     f"Write {EXPORT_FORMAT_LABELS.get(name, name)} (<name>{FORMAT_SUFFIXES[name]})")
    for name in FORMATS)
DEFAULT_EXPORT_FORMATS = {"json"}


def export_formats_property():
    """The export format choice (scene setting and operator option)."""
    return EnumProperty(name="Formats", items=EXPORT_FORMAT_ITEMS, options={'ENUM_FLAG'},
                        default=DEFAULT_EXPORT_FORMATS,
                        description="File formats to write beside the chosen path")


class NAVJUMP_PG_settings(PropertyGroup):
    # --- what to bake ---
    source: EnumProperty(name="Source", items=SOURCE_ITEMS, default='SCENE',
                         description="Which objects the bake reads")
    source_collection: PointerProperty(
        name="Collection", type=bpy.types.Collection,
        description="Collection to bake when the source is a collection")
    bounds_object: PointerProperty(
        name="Bounds", type=bpy.types.Object, poll=_bounds_poll,
        description="Bake only inside this object's box (a mesh's bounding box or an "
                    "empty's cube, as transformed in the scene); triangles crossing it are "
                    "clipped. The object itself is never baked")
    # --- debug data for the overlay's debug layers ---
    keep_debug: BoolProperty(
        name="Debug Data", default=False,
        description="Keep the voxel tops, regions and contours of the bake (stored with the "
                    "result) for the overlay's debug layers")
    # --- export (the last successful File > Export > NavJump navmesh) ---
    export_path: StringProperty(name="Export Path", subtype='FILE_PATH', default="",
                                description="NavJump JSON file of the last export; the "
                                            "other formats go beside it")
    export_formats: export_formats_property()

    # --- agent ---
    agent_radius: _length("Radius", 0.4, "Agent radius: walkable areas keep this distance "
                          "from walls and ledges", soft_max=5.0, hard_max=50.0)
    agent_height: _length("Height", 1.8, "Clearance the agent needs (single-stance bakes)",
                          soft_max=10.0)
    agent_max_climb: _length("Max Climb", 0.4, "Tallest step the agent walks up without "
                             "jumping", soft_max=5.0)
    agent_max_slope: FloatProperty(
        name="Max Slope", description="Steepest walkable slope, in degrees", default=45.0,
        min=0.0, max=89.9, soft_max=89.0, precision=1)

    multi_stance: BoolProperty(
        name="Stances", default=True,
        description="Tag polygons stand / crouch / prone by their free height (off: one "
                    "agent height)")
    stand_height: _length("Stand", _DEFAULTS.stand_height, "Clearance to walk upright")
    crouch_height: _length("Crouch", _DEFAULTS.crouch_height, "Clearance to crouch")
    prone_height: _length("Prone", _DEFAULTS.prone_height, "Clearance to crawl")
    stand_enabled: BoolProperty(name="Stand", default=True, description="Agent can stand")
    crouch_enabled: BoolProperty(name="Crouch", default=True, description="Agent can crouch")
    prone_enabled: BoolProperty(name="Prone", default=True, description="Agent can crawl")

    # --- jump links ---
    links_enabled: BoolProperty(name="Jump Links", default=True,
                                description="Find drop, jump-across and jump-up links")
    max_jump_height: _length("Jump Height", _DEFAULTS.max_jump_height,
                             "Highest ledge the agent jumps up onto", soft_max=10.0,
                             hard_max=20.0)
    max_jump_distance: _length("Jump Distance", _DEFAULTS.max_jump_distance,
                               "Widest gap the agent jumps across", soft_max=10.0,
                               hard_max=30.0)
    max_drop_height: _length("Drop Height", _DEFAULTS.max_drop_height,
                             "Deepest drop the agent survives", soft_max=20.0)
    drop_enabled: BoolProperty(name="Drop", default=True, description="Find drop links")
    jump_across_enabled: BoolProperty(name="Jump Across", default=True,
                                      description="Find links across gaps")
    jump_up_enabled: BoolProperty(name="Jump Up", default=True,
                                  description="Find links up onto ledges")
    gravity: FloatProperty(name="Gravity", default=_DEFAULTS.gravity, min=0.1, max=100.0,
                           unit='ACCELERATION', description="Used for jump arcs")
    link_sample_step: _length("Sample Step", _DEFAULTS.link_sample_step,
                              "Spacing of link samples along edges (0: one cell)",
                              soft_max=2.0, hard_max=10.0)
    min_link_width: FloatProperty(
        name="Min Link Width", default=_DEFAULTS.min_link_width, min=-1.0, max=100.0,
        soft_max=5.0, unit='LENGTH', precision=3,
        description=("Narrowest link kept, on its start segment (a jump up: on both); "
                     "negative: the agent's diameter"))
    link_search_angle: FloatProperty(
        name="Search Angle", default=_DEFAULTS.link_search_angle, min=0.0, max=60.0,
        description="Degrees either side of an edge's outward normal to look for landings")
    cost_drop: _cost("Drop", _DEFAULTS.cost_drop)
    cost_jump_across: _cost("Jump Across", _DEFAULTS.cost_jump_across)
    cost_jump_up: _cost("Jump Up", _DEFAULTS.cost_jump_up)

    # --- voxels and polygons (Advanced) ---
    auto_cell_size: BoolProperty(
        name="Auto Cell Size", default=True,
        description="Cell size = agent radius / 2 and cell height = cell size / 2")
    cell_size: _length("Cell Size", _DEFAULTS.cell_size, "Voxel width (x and y)",
                       soft_max=1.0, hard_max=10.0)
    cell_height: _length("Cell Height", _DEFAULTS.cell_height, "Voxel height (z)",
                         soft_max=1.0, hard_max=10.0)
    region_min_size: IntProperty(
        name="Min Region Size", default=_DEFAULTS.region_min_size, min=0, max=1000,
        soft_max=150, description="Islands smaller than this (in cells, squared) are removed")
    region_merge_size: IntProperty(
        name="Merged Region Size", default=_DEFAULTS.region_merge_size, min=0, max=10000,
        soft_max=150, description="Regions smaller than this (in cells, squared) are merged "
                                  "into neighbours")
    edge_max_len: _length("Max Edge Length", _DEFAULTS.edge_max_len,
                          "Longest polygon edge along borders (0: unlimited)", soft_max=50.0,
                          hard_max=10000.0)
    edge_max_error: FloatProperty(
        name="Max Edge Error", default=_DEFAULTS.edge_max_error, min=0.1, max=100.0,
        soft_max=3.0, description="How far a simplified border may stray, in cells")
    verts_per_poly: IntProperty(name="Verts per Poly", default=_DEFAULTS.verts_per_poly,
                                min=3, max=6, description="Most vertices in one polygon")
    detail_sample_dist: FloatProperty(
        name="Detail Sample Distance", default=_DEFAULTS.detail_sample_dist, min=0.0,
        max=100.0, soft_max=16.0, description="Height sampling step, in cells (0: off)")
    detail_sample_max_error: FloatProperty(
        name="Detail Max Error", default=_DEFAULTS.detail_sample_max_error, min=0.0,
        max=100.0, soft_max=16.0,
        description="How far the detail mesh may stray from the surface, in cell heights")
    partition: EnumProperty(name="Partition", items=PARTITION_ITEMS, default='WATERSHED',
                            description="How walkable areas are split into regions")
    filter_low_hanging_obstacles: BoolProperty(
        name="Low Hanging Obstacles", default=True,
        description="Let agents step onto low obstacles such as curbs")
    filter_ledge_spans: BoolProperty(name="Ledge Spans", default=True,
                                     description="Remove walkable cells on ledge tops")
    filter_low_height_spans: BoolProperty(
        name="Low Height Spans", default=True,
        description="Remove cells without enough clearance above them")
    # --- climbing (docs/climbing.md) ---
    climbing_enabled: BoolProperty(
        name="Climbing", default=_DEFAULTS.climbing_enabled,
        description="Build the climb graph of the ledge, ladder and pipe objects (role, or "
                    "a name ending in -ledge, -ladder or -pipe)")
    max_climb_height: _length("Max Climb Height", _DEFAULTS.max_climb_height,
                              "Highest hanging point an agent jumps up to from the ground",
                              soft_max=10.0, hard_max=100.0, hard_min=0.01)
    auto_ledges: BoolProperty(
        name="Find Ledges", default=_DEFAULTS.auto_ledges,
        description="Also turn top edges of walls between jump-up height and Max Climb "
                    "Height into ledges (docs/climbing.md)")
    tile_size: IntProperty(
        name="Tile Size", default=_DEFAULTS.tile_size, min=0, max=8192, soft_min=0,
        soft_max=512, description="Bake in square tiles of this many cells (0: one grid; "
                                  "docs/tiles.md)")
    memory_limit_gb: FloatProperty(
        name="Memory Limit (GB)", default=0.0, min=0.0, max=1.0e6, soft_max=64.0,
        description="Refuse bakes that would need more (0: the machine's free memory)")


def effective_voxel_size(settings_pg) -> tuple[float, float]:
    if settings_pg.auto_cell_size:
        return auto_voxel_size(settings_pg.agent_radius)
    return _tidy(settings_pg.cell_size), _tidy(settings_pg.cell_height)


def to_bake_settings(settings_pg) -> BakeSettings:
    """The scene's sliders as core settings (not validated yet)."""
    values: dict[str, Any] = {}
    for f in fields(BakeSettings):
        if f.name in ("cell_size", "cell_height") or not hasattr(settings_pg, f.name):
            continue  # a core setting without a slider keeps its default
        value = getattr(settings_pg, f.name)
        if f.name == "partition":
            value = value.lower()
        elif isinstance(value, bool):
            pass
        elif isinstance(value, int):
            value = int(value)
        elif isinstance(value, float):
            value = _tidy(value)
        values[f.name] = value
    values["cell_size"], values["cell_height"] = effective_voxel_size(settings_pg)
    return BakeSettings(**values)


def setting_label(name: str) -> str:
    """UI name of a setting, for error messages ("Crouch" for crouch_height...)."""
    prop = NAVJUMP_PG_settings.bl_rna.properties.get(name)
    return prop.name if prop is not None else name


classes = (NAVJUMP_PG_settings,)


_register_classes, _unregister_classes = register_classes_factory(classes)


def register():
    _register_classes()
    # RNA properties are added at run time (the stubs cannot know them and type the
    # property functions -> None)
    bpy.types.Scene.navjump = PointerProperty(type=NAVJUMP_PG_settings)  # type: ignore[attr-defined, func-returns-value]
    bpy.types.Object.navjump_role = EnumProperty(  # type: ignore[attr-defined, func-returns-value]
        name="NavJump Role", items=ROLE_ITEMS, default='WALKABLE',
        description="How the NavJump bake treats this object")


def unregister():
    del bpy.types.Object.navjump_role  # type: ignore[attr-defined]  # added by register()
    del bpy.types.Scene.navjump  # type: ignore[attr-defined]  # added by register()
    _unregister_classes()
