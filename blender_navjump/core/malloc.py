"""Large bake arrays go back to the operating system when freed (Linux, glibc).

glibc's malloc serves a block above a threshold with its own mmap, unmapped on free, but it
raises that threshold to the size of every such block freed (up to 32 MB). After one large
bake, the next bake's arrays below 32 MB then come from the heap, whose freed pages the
process keeps: measured on the 1 M-triangle scene, every bake after the first peaked ~60 MB
higher (469 MB against 408). A fixed threshold stops that: blocks of ``MMAP_THRESHOLD`` and
more always come from mmap (peak 430 MB on every bake), smaller ones from the heap as before,
so small bakes pay no extra page faults. A fixed threshold also fixes glibc's trim
threshold (free memory at the top of the heap given back to the OS) at its 128 kB default,
so every bake of a small scene faulted its few MB of arrays in again (nav_test: ~1,200 page
faults, ~3 ms of a 20 ms bake); ``TRIM_THRESHOLD`` keeps up to 16 MB of freed heap for the
next bake instead (large arrays come from mmap anyway). Elsewhere (another C library,
macOS, Windows, an allocator that replaces malloc) nothing changes.
"""

from __future__ import annotations

import ctypes
import sys

MMAP_THRESHOLD = 4 * 1024 * 1024
TRIM_THRESHOLD = 16 * 1024 * 1024
_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers
_M_MMAP_THRESHOLD = -3
_fixed = False


def fix_mmap_threshold() -> bool:
    """Set glibc's mmap and trim thresholds (``MMAP_THRESHOLD``, ``TRIM_THRESHOLD``) once
    per process; True if set."""
    global _fixed
    if _fixed or not sys.platform.startswith("linux"):
        return _fixed
    _fixed = True
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018  (glibc only; AttributeError elsewhere)
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                    and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    except (OSError, AttributeError):
        return False
