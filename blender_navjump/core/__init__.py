"""The bake core: numpy + numba only, never imports bpy."""

from __future__ import annotations

from typing import TYPE_CHECKING as _TYPE_CHECKING

# numba's cache is set up before any kernel module imports numba (see kernel_cache.py):
# every import of the core, from any front end, passes here first.
from .kernel_cache import configure as _configure_kernels

_configure_kernels()

# navmesh and settings need only numpy; numba is first imported by the stage modules.
from .navmesh import LINK_KINDS, STANCE_NAMES, NavMesh  # noqa: E402
from .settings import BakeSettings, SettingsError  # noqa: E402

if _TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .debug import BakeDebug
    from .pipeline import ProgressCallback


def bake(vertices: ArrayLike, triangles: ArrayLike, settings: BakeSettings | None = None,
         progress: ProgressCallback | None = None, *,
         walkable: ArrayLike | None = None, volumes=(),
         debug: BakeDebug | None = None, tile_cache=None, changed=None) -> NavMesh:
    """Bake a navmesh from world-space triangles (Z up). See ``pipeline.bake``;
    ``volumes``: modifier volumes (``core.areas``), several agents: ``core.agents``;
    ``tile_cache`` / ``changed``: re-bake only the tiles an edit touches (``core.tiles``)."""
    from .pipeline import bake as _bake

    return _bake(vertices, triangles, settings, progress, walkable=walkable, volumes=volumes,
                 debug=debug, tile_cache=tile_cache, changed=changed)


__all__ = ["bake", "BakeSettings", "SettingsError", "NavMesh", "STANCE_NAMES", "LINK_KINDS"]
