"""Where numba keeps the compiled kernels: a folder per version of the core's sources.

numba checks a cached kernel against its own source file only. A kernel that inlines or
calls functions from another file (``links_search`` calls ``links_model``) keeps running
the old machine code after that other file changes. Keying the folder on every core source
file's size and modification time makes any change start a fresh cache; older folders are
removed. Imports neither numba nor bpy.
"""

from __future__ import annotations

import hashlib
import os
import shutil

_CORE = os.path.dirname(os.path.abspath(__file__))
FINGERPRINT_LENGTH = 16


def source_fingerprint(root: str = _CORE) -> str:
    """Hex digest of the names, sizes and modification times of the .py files under root."""
    h = hashlib.sha1()
    for folder, dirs, files in sorted(os.walk(root)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                rel = os.path.relpath(os.path.join(folder, name), root)
                h.update(f"{rel}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()[:FINGERPRINT_LENGTH]


def _is_fingerprint(name: str) -> bool:
    return len(name) == FINGERPRINT_LENGTH and all(c in "0123456789abcdef" for c in name)


def versioned_cache_dir(base: str, fingerprint: str | None = None) -> str:
    """``base/<fingerprint>``; other fingerprint folders in base are removed (best effort:
    another process may still be using one, or the folder may be read-only)."""
    fp = fingerprint or source_fingerprint()
    folder = os.path.join(base, fp)
    try:
        for name in os.listdir(base):
            if name != fp and _is_fingerprint(name):
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    except OSError:
        pass
    return folder
