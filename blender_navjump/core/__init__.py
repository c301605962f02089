"""The bake core: numpy + numba only, never imports bpy."""

# numba's cache is set up before any kernel module imports numba (see kernel_cache.py):
# every import of the core, from any front end, passes here first.
from .kernel_cache import configure as _configure_kernels

_configure_kernels()

# navmesh and settings need only numpy; numba is first imported by the stage modules.
from .navmesh import LINK_KINDS, STANCE_NAMES, NavMesh  # noqa: E402
from .settings import BakeSettings, SettingsError  # noqa: E402


def bake(vertices, triangles, settings=None, progress=None, *, walkable=None):
    """Bake a navmesh from world-space triangles (Z up). See ``pipeline.bake``."""
    from .pipeline import bake as _bake

    return _bake(vertices, triangles, settings, progress, walkable=walkable)


__all__ = ["bake", "BakeSettings", "SettingsError", "NavMesh", "STANCE_NAMES", "LINK_KINDS"]
