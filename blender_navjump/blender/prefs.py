"""Add-on preferences, registered under the extension's own package name."""

from bpy.props import BoolProperty
from bpy.types import AddonPreferences

from .stub_gaps import blender_preferences, register_classes_factory

# "bl_ext.<repo>.<id>": the name Blender registered us under; never hard-code it.
ADDON_PACKAGE = __package__.rpartition(".")[0]


class NAVJUMP_AddonPreferences(AddonPreferences):
    bl_idname = ADDON_PACKAGE

    use_background_thread: BoolProperty(
        name="Bake in Background",
        description="Run interactive bakes in a worker thread so the progress is shown and "
                    "Esc cancels; off runs the bake in the foreground (Blender is busy until "
                    "it finishes)",
        default=True,
    )

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "use_background_thread")
        from ..core import kernel_cache  # no numba import: only where the kernels live

        col = layout.column(align=True)
        col.label(text="Compiled kernels are cached in (shared with the command line):")
        col.label(text=kernel_cache.active_dir())
        from . import kernel_preload

        col.label(text=f"Kernels in this session: {kernel_preload.status()}")


def preferences(context=None):
    """Our preferences, or None when the add-on is not registered under ADDON_PACKAGE."""
    prefs = context.preferences if context is not None else blender_preferences()
    addon = prefs.addons.get(ADDON_PACKAGE)
    return addon.preferences if addon is not None else None


register, unregister = register_classes_factory((NAVJUMP_AddonPreferences,))
