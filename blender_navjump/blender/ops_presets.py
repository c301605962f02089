"""Agent presets through Blender's preset system.

Shipped presets live in the extension (``presets/navjump/agent/*.py``) and are read-only;
"save your own" writes to the user's scripts folder (``presets/navjump/agent``) like every
Blender preset. The extension folder itself is never written to.
"""

import os

import bpy
from bl_operators.presets import AddPresetBase
from bpy.types import Menu, Operator

from .stub_gaps import register_classes_factory

PRESET_SUBDIR = os.path.join("navjump", "agent")
# <package>/presets/navjump/agent: register_preset_path() wants the folder holding "presets".
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIPPED_PRESETS_DIR = os.path.join(PACKAGE_DIR, "presets", PRESET_SUBDIR)

# The sliders a preset stores: the agent, not the voxel or polygon settings.
AGENT_PRESET_FIELDS = (
    "agent_radius", "agent_height", "agent_max_climb", "agent_max_slope",
    "multi_stance", "stand_height", "crouch_height", "prone_height",
    "stand_enabled", "crouch_enabled", "prone_enabled",
    "links_enabled", "max_jump_height", "max_jump_distance", "max_drop_height",
    "drop_enabled", "jump_across_enabled", "jump_up_enabled",
)


def preset_dirs() -> list[str]:
    dirs = bpy.utils.preset_paths(PRESET_SUBDIR)
    if not any(os.path.samefile(d, SHIPPED_PRESETS_DIR) for d in dirs
               if os.path.isdir(d)) and os.path.isdir(SHIPPED_PRESETS_DIR):
        dirs.append(SHIPPED_PRESETS_DIR)
    return dirs


def shipped_presets() -> dict[str, str]:
    """Display name -> file of the presets shipped with the extension."""
    out = {}
    for name in sorted(os.listdir(SHIPPED_PRESETS_DIR)):
        if name.endswith(".py"):
            out[bpy.path.display_name(name, title_case=False)] = os.path.join(
                SHIPPED_PRESETS_DIR, name)
    return out


def find_preset(display_name: str) -> str | None:
    """File of a preset (shipped or the user's) by the name the menu shows."""
    for directory in preset_dirs():
        for name in sorted(os.listdir(directory)):
            if name.endswith(".py") and \
                    bpy.path.display_name(name, title_case=False) == display_name:
                return os.path.join(directory, name)
    return None


class NAVJUMP_MT_agent_presets(Menu):
    bl_label = "Agent Presets"
    preset_subdir = PRESET_SUBDIR
    preset_operator = "script.execute_preset"
    preset_add_operator = "navjump.agent_preset_add"

    def draw(self, context):
        # Like Menu.draw_preset, but also lists the shipped folder on Blender versions
        # without bpy.utils.register_preset_path.
        self.path_menu(
            preset_dirs(),
            self.preset_operator,
            filter_ext=lambda ext: ext.lower() == ".py",
            add_operator=self.preset_add_operator,
            display_name=lambda name: bpy.path.display_name(name, title_case=False),
        )


# The stubs give AddPresetBase's execute/invoke/check other signatures than Operator's; Blender's
# own preset operators combine the two the same way.
class NAVJUMP_OT_agent_preset_add(AddPresetBase, Operator):  # type: ignore[misc]
    """Save the agent settings as a preset, or remove the selected preset"""

    bl_idname = "navjump.agent_preset_add"
    bl_label = "Add Agent Preset"
    preset_menu = "NAVJUMP_MT_agent_presets"
    preset_subdir = PRESET_SUBDIR
    preset_defines = ["settings = bpy.context.scene.navjump"]
    preset_values = [f"settings.{name}" for name in AGENT_PRESET_FIELDS]


classes = (NAVJUMP_MT_agent_presets, NAVJUMP_OT_agent_preset_add)


_register_classes, _unregister_classes = register_classes_factory(classes)


def register():
    _register_classes()
    if hasattr(bpy.utils, "register_preset_path"):
        bpy.utils.register_preset_path(PACKAGE_DIR)


def unregister():
    if hasattr(bpy.utils, "unregister_preset_path"):
        bpy.utils.unregister_preset_path(PACKAGE_DIR)
    _unregister_classes()
