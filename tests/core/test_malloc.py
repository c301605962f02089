"""A fixed mmap threshold: large arrays freed go back to the OS (Linux with glibc)."""

import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {root!r})
    from blender_navjump.core.malloc import fix_mmap_threshold

    def rss():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024

    fixed = fix_mmap_threshold() if {fix} else False
    a = np.ones(24 * 2**20, np.uint8)  # freed: glibc alone raises its threshold to 24 MB
    del a
    r0 = rss()
    b = np.ones(8 * 2**20, np.uint8)
    del b
    print(fixed, (rss() - r0) / 2**20)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc only")
def test_freed_large_arrays_leave_the_process():
    import pathlib

    root = str(pathlib.Path(__file__).resolve().parents[2])
    kept = {}
    for fix in (False, True):
        out = subprocess.run([sys.executable, "-c", CHILD.format(root=root, fix=fix)],
                             capture_output=True, text=True, check=True).stdout.split()
        kept[fix] = float(out[1])
        if fix and out[0] != "True":
            pytest.skip("not glibc: mallopt is not available")
    assert kept[True] < 2.0  # the 8 MB array was unmapped on free
    assert kept[False] > 6.0  # without the fix it stays in the heap (the test can fail)


TRIM_CHILD = textwrap.dedent("""
    import resource
    import sys
    import numpy as np
    sys.path.insert(0, {root!r})
    from blender_navjump.core.malloc import fix_mmap_threshold

    fixed = fix_mmap_threshold()
    faults = []
    for _ in range(3):  # a "bake" of 12 MB in 1 MB arrays (below the mmap threshold)
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        arrays = [np.ones(2**20, np.uint8) for _ in range(12)]
        del arrays
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    print(fixed, faults[-1])
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc only")
def test_freed_heap_is_kept_for_the_next_bake():
    """Freed heap below the trim threshold stays: the next bake's small arrays reuse it
    instead of faulting fresh pages in (with glibc's 128 kB trim threshold every round
    faults its 12 MB, ~3,000 pages, in again)."""
    import pathlib

    root = str(pathlib.Path(__file__).resolve().parents[2])
    out = subprocess.run([sys.executable, "-c", TRIM_CHILD.format(root=root)],
                         capture_output=True, text=True, check=True).stdout.split()
    if out[0] != "True":
        pytest.skip("not glibc: mallopt is not available")
    assert int(out[1]) < 300
