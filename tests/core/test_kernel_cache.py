"""The numba cache folder follows every change of the core's sources."""

import os
import pathlib
import subprocess
import sys

from blender_navjump.core import kernel_cache


def _write(path, text, mtime_ns):
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_fingerprint_changes_when_any_source_changes(tmp_path):
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "a.py", "x = 1\n", 1_000_000_000)
    _write(tmp_path / "sub" / "b.py", "y = 2\n", 1_000_000_000)
    first = kernel_cache.source_fingerprint(str(tmp_path))
    assert kernel_cache.source_fingerprint(str(tmp_path)) == first
    # an edit in a file the caller only imports (the stale-kernel case)
    _write(tmp_path / "sub" / "b.py", "y = 2\n", 2_000_000_000)
    second = kernel_cache.source_fingerprint(str(tmp_path))
    assert second != first
    _write(tmp_path / "sub" / "b.py", "y = 22\n", 2_000_000_000)
    assert kernel_cache.source_fingerprint(str(tmp_path)) != second
    # caches and non-Python files do not count
    (tmp_path / "__pycache__").mkdir()
    _write(tmp_path / "__pycache__" / "c.py", "z\n", 3)
    _write(tmp_path / "notes.txt", "n\n", 3)
    assert len(kernel_cache.source_fingerprint(str(tmp_path))) == kernel_cache.FINGERPRINT_LENGTH


def test_versioned_folder_replaces_older_versions_only(tmp_path):
    old = tmp_path / "0123456789abcdef"
    old.mkdir()
    (old / "kernel.nbi").write_text("old")
    keep = tmp_path / "user-notes"
    keep.mkdir()
    folder = kernel_cache.versioned_cache_dir(str(tmp_path), "fedcba9876543210")
    assert folder == str(tmp_path / "fedcba9876543210")
    assert not old.exists()
    assert keep.exists()


def test_missing_base_folder_is_not_an_error(tmp_path):
    base = tmp_path / "not-yet"
    folder = kernel_cache.versioned_cache_dir(str(base))
    assert os.path.dirname(folder) == str(base)


def test_core_uses_a_versioned_folder_outside_blender(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    root = pathlib.Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", "import os, blender_navjump.core; "
                          "print(os.environ['NUMBA_CACHE_DIR'])"], cwd=root, env=env,
                         capture_output=True, text=True, check=True).stdout.strip()
    expected = tmp_path / "navjump" / "numba" / kernel_cache.source_fingerprint()
    assert out == str(expected)
