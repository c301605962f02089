"""The bake core: numpy + numba only, never imports bpy."""

from __future__ import annotations

import os as _os
import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING

# navmesh and settings need only numpy; numba is first imported by the stage modules.
from .navmesh import LINK_KINDS, STANCE_NAMES, NavMesh
from .settings import BakeSettings, SettingsError

if _TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .pipeline import ProgressCallback


def _configure_numba_cache():
    """Outside Blender, keep numba's compiled kernels in a per-user cache folder.

    numba's default in-tree cache (``__pycache__`` beside the sources) is shared with a
    development copy of the extension that links these same files under another module
    name (``bl_ext...``); an index written by one cannot be read by the other. Inside
    Blender the extension sets its own folder (``blender/numba_env.py``). Either way the
    kernels go in a subfolder per version of the sources (``kernel_cache``).
    """
    if __name__.startswith("bl_ext.") or _os.environ.get("NUMBA_CACHE_DIR"):
        return
    base = _os.environ.get("XDG_CACHE_HOME") or _os.path.join(_os.path.expanduser("~"),
                                                               ".cache")
    from .kernel_cache import versioned_cache_dir

    folder = versioned_cache_dir(_os.path.join(base, "navjump", "numba"))
    _os.environ["NUMBA_CACHE_DIR"] = folder
    numba = _sys.modules.get("numba")
    if numba is not None and not numba.config.CACHE_DIR:
        numba.config.CACHE_DIR = folder


_configure_numba_cache()



def bake(vertices: ArrayLike, triangles: ArrayLike, settings: BakeSettings | None = None,
         progress: ProgressCallback | None = None, *,
         walkable: ArrayLike | None = None) -> NavMesh:
    """Bake a navmesh from world-space triangles (Z up). See ``pipeline.bake``."""
    from .pipeline import bake as _bake

    return _bake(vertices, triangles, settings, progress, walkable=walkable)


__all__ = ["bake", "BakeSettings", "SettingsError", "NavMesh", "STANCE_NAMES", "LINK_KINDS"]
