"""Blender adapters: properties, scene gathering, operators, panels and result storage.

Nothing here runs at import time: ``register()`` imports the bpy-facing modules, so
``blender_navjump.blender.devload`` can be imported by scripts and tests without
side effects. The core (numba) is imported when a bake runs or, in an interactive Blender,
by ``kernel_preload``'s background thread after start-up.
"""

# Registration order matters: preferences and properties first (panels and operators use
# them), handlers last; unregister runs in reverse.
_MODULE_NAMES = ("prefs", "props", "props_agents", "props_climb", "storage", "ops_bake",
                 "ops_clear", "ops_presets", "ops_export", "ops_agents", "panel", "panel_agents",
                 "overlay_props", "overlay", "gizmo", "live_rebake", "panel_overlay",
                 "panel_climb", "cli_command", "kernel_preload")


def _modules():
    import importlib

    return [importlib.import_module(f".{name}", __package__) for name in _MODULE_NAMES]


def register():
    done = []
    try:
        for module in _modules():
            module.register()
            done.append(module)
    except Exception:
        # Leave Blender as we found it when one module fails half-way.
        for module in reversed(done):
            module.unregister()
        raise


def unregister():
    for module in reversed(_modules()):
        module.unregister()
