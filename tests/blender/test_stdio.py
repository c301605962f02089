"""``blender/stdio.py``: what Blender's C code writes on fd 1 goes to stderr in the block."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A child process, so the real file descriptors 1 and 2 are pipes we read (pytest's own
# capture replaces sys.stdout, which is not what Blender writes through).
CHILD = r"""
import ctypes, os, sys
from blender_navjump.blender.stdio import stdout_to_stderr
print("before", flush=True)
with stdout_to_stderr():
    os.write(1, b"raw fd 1\n")
    ctypes.CDLL(None).printf(b"from C stdio\n")  # buffered: flushed when the block ends
    print("python print", flush=True)
print("after", flush=True)
"""


def test_fd1_goes_to_stderr_inside_the_block_and_comes_back():
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          cwd=str(ROOT), timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["before", "after"]
    assert set(proc.stderr.splitlines()) >= {"raw fd 1", "from C stdio", "python print"}
