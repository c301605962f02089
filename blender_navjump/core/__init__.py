"""The bake core: numpy + numba only, never imports bpy."""

from .navmesh import LINK_KINDS, STANCE_NAMES, NavMesh
from .settings import BakeSettings, SettingsError


def bake(vertices, triangles, settings=None, progress=None, *, walkable=None):
    """Bake a navmesh from world-space triangles (Z up). See ``pipeline.bake``."""
    from .pipeline import bake as _bake

    return _bake(vertices, triangles, settings, progress, walkable=walkable)


__all__ = ["bake", "BakeSettings", "SettingsError", "NavMesh", "STANCE_NAMES", "LINK_KINDS"]
