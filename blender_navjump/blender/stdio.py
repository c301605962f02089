"""Blender prints its log on stdout, which the batch commands keep for their summary lines.

:func:`stdout_to_stderr` sends file descriptor 1 to stderr for a block, so Blender's C
code (which writes through stdio, not ``sys.stdout``) logs to stderr. No bpy.
"""

from __future__ import annotations

import contextlib
import os
import sys


@contextlib.contextmanager
def stdout_to_stderr():
    """Send fd 1 to stderr for the block: Blender logs to stdout, which is ours."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no real stdout (embedded): nothing to protect
        yield
        return
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        _flush_c_stdout()
        os.dup2(saved, 1)
        os.close(saved)


def _flush_c_stdout():
    # Blender's C code prints through stdio; flush its buffer before fd 1 changes back.
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):
        pass
