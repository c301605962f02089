"""Point numba's cache at the extension's user folder, then import the core.

numba reads ``NUMBA_CACHE_DIR`` once, when it is first imported, and the core modules
import numba at import time: so this must run before the first core import. The
extension's own folder is wiped on upgrade and may be read-only, hence the user path.
"""

import os
import sys

ADDON_PACKAGE = __package__.rpartition(".")[0]


def numba_cache_base() -> str:
    """The extension's user folder for compiled kernels."""
    import bpy

    return bpy.utils.extension_path_user(ADDON_PACKAGE, path="numba_cache", create=True)


def numba_cache_dir() -> str:
    """The folder for this version of the core's sources (see ``core/kernel_cache.py``)."""
    from ..core.kernel_cache import versioned_cache_dir

    return versioned_cache_dir(numba_cache_base())


def configure_numba_cache() -> str:
    """Set the cache folder unless the user chose one; return the folder in use."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        os.environ["NUMBA_CACHE_DIR"] = numba_cache_dir()
    numba = sys.modules.get("numba")
    if numba is not None and not numba.config.CACHE_DIR:
        # numba was imported earlier (another add-on, or a script): its config already
        # froze the environment, so tell it directly. Functions compiled from now on
        # (our core's) use the folder.
        numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
    return os.environ["NUMBA_CACHE_DIR"]


def import_core():
    """The ``core`` package with numba configured; import it only through here."""
    configure_numba_cache()
    from .. import core

    return core


def import_pipeline():
    configure_numba_cache()
    from ..core import pipeline

    return pipeline
