"""The kernels committed with the sources (``blender_navjump/kernels/linux-x64.tar.xz``,
written by ``scripts/build_extension.py --checkout-kernels``): they match the sources of
this checkout, and a new process with an empty kernel folder loads every kernel from them
without compiling one (numba's own statistics, not time)."""

import json
import os
import pathlib
import subprocess
import sys
import tarfile

import pytest
from script_modules import load_script

from blender_navjump.core import kernel_cache

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNELS = ROOT / "blender_navjump" / "kernels"
REBUILD = ".venv/bin/python scripts/build_extension.py --checkout-kernels"
ON_PACK_PLATFORM = kernel_cache.platform_tag() == "linux-x64" and sys.version_info[:2] == (3, 11)


def _pins() -> dict:
    return load_script("build_extension").pinned_versions()


@pytest.mark.skipif(not ON_PACK_PLATFORM, reason="the committed pack is for Linux x86-64, "
                    "Python 3.11 only")
def test_committed_pack_matches_the_sources_and_pins():
    manifest = KERNELS / "linux-x64.json"
    assert manifest.exists() and (KERNELS / "linux-x64.tar.xz").exists(), \
        f"no committed kernel pack: run {REBUILD}"
    info = json.loads(manifest.read_text())
    assert info["fingerprint"] == kernel_cache.source_fingerprint(), \
        f"the committed kernels were compiled from other core sources: run {REBUILD}"
    pins = _pins()
    assert (info["numba"], info["llvmlite"]) == (pins["numba"], pins["llvmlite"])
    assert info["python"] == "3.11" and info["magic"][1] == kernel_cache.PORTABLE_CPU
    why = []
    assert kernel_cache.shipped_info(str(KERNELS), why) is not None, why
    with tarfile.open(KERNELS / "linux-x64.tar.xz", "r:xz") as tar:
        names = tar.getnames()
    # only kernel files under core/, every index with its data
    assert names and all(n.startswith("core/") and ".." not in n for n in names)
    assert any(n.startswith("core/query/") for n in names)
    assert {n[:-len(".nbi")] for n in names if n.endswith(".nbi")} == \
        {n.rsplit(".", 2)[0] for n in names if n.endswith(".nbc")}


LOAD_ALL = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from blender_navjump.core import kernel_cache
kernel_cache.warm_up()
stats = kernel_cache.kernel_stats()
print("STATS " + json.dumps({"hits": stats["hits"], "misses": stats["misses"],
      "compiled": sorted(k for k, (h, m) in stats["kernels"].items() if m)}))
"""


@pytest.mark.skipif(not ON_PACK_PLATFORM, reason="the committed pack is for Linux x86-64, "
                    "Python 3.11 only")
def test_new_process_with_empty_cache_compiles_nothing(tmp_path):
    if json.loads((KERNELS / "linux-x64.json").read_text())["fingerprint"] != \
            kernel_cache.source_fingerprint():
        pytest.fail(f"the committed kernels are stale: run {REBUILD}")
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES",
                        kernel_cache.INSTALL_SHIPPED_ENV)}
    env["NAVJUMP_KERNEL_CACHE"] = str(tmp_path / "kernels")
    proc = subprocess.run([sys.executable, "-c", LOAD_ALL, str(ROOT)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (line,) = [ln for ln in proc.stdout.splitlines() if ln.startswith("STATS ")]
    stats = json.loads(line[6:])
    assert stats["misses"] == 0, f"compiled: {stats['compiled']}"
    assert stats["hits"] > 50
