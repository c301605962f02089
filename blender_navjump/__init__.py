"""NavJump: navigation mesh, multi-stance layers and jump links baked from Blender scenes.

This package is both a Blender extension (``register``/``unregister`` below, loaded by
Blender) and a plain Python package whose ``core`` and ``export`` need only numpy and
numba. bpy is imported only inside ``blender/``, and only when Blender registers us.
"""


def register():
    from .blender import register as _register

    _register()


def unregister():
    from .blender import unregister as _unregister

    _unregister()
