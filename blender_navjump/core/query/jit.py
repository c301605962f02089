"""The decorator of the query kernels that the batch kernel calls per query, node or point.

``hot_kernel`` compiles a function without NRT reference counting (numba's ``_nrt=False``):
its array arguments are borrowed from the caller (``solve_batch`` holds them for the whole
batch) and it allocates nothing, so the increfs and decrefs (atomic calls) that a plain
call of a function taking arrays costs are gone. Measured on Recast's dungeon and
nav_test meshes (docs/path-queries.md, "Performance"): as fast as inlining these
functions into the batch kernel (``inline="always"``, which they used before), and the first
``find_path`` compiles in about half the time (each inlined copy was typed and compiled
again at every call site).

A ``hot_kernel`` must not create arrays (``np.empty``, ``np.zeros``, copies): that needs
NRT and fails to compile. Slices and row views of its arguments are fine.
"""

from __future__ import annotations

from numba import njit

hot_kernel = njit(cache=True, _nrt=False)


@hot_kernel
def ifloor(x):
    """``int(math.floor(x))`` for a finite x, inline: the portable kernels (plain x86-64,
    no SSE4.1 rounding instruction) call a C helper for ``math.floor`` (3 % of the link
    stage on dungeon.obj, in the grid look-ups of every march step and bin range)."""
    i = int(x)
    return i - 1 if x < i else i


__all__ = ["hot_kernel", "ifloor"]
